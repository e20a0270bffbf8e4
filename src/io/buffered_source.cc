// ByteSources over memory and over a reused buffer filled from an InputStream.
#include <algorithm>
#include <cstring>
#include <vector>

#include "io/sources.h"

namespace stepstat {

namespace {

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string_view bytes, size_t chunk)
      : bytes_(bytes), chunk_(std::max<size_t>(chunk, 1)) {}

  Result<std::string_view> Next(size_t consumed) override {
    begin_ += std::min(consumed, end_ - begin_);
    end_ = std::min(bytes_.size(), std::max(end_, begin_) + chunk_);
    return bytes_.substr(begin_, end_ - begin_);
  }
  bool exhausted() const override { return end_ == bytes_.size(); }
  uint64_t offset() const override { return begin_; }

 private:
  std::string_view bytes_;
  size_t chunk_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

class BufferedStreamSource final : public ByteSource {
 public:
  BufferedStreamSource(std::unique_ptr<InputStream> stream, size_t buffer_bytes)
      : stream_(std::move(stream)), buffer_(std::max<size_t>(buffer_bytes, 64)) {}

  Result<std::string_view> Next(size_t consumed) override {
    consumed = std::min(consumed, size_);
    offset_ += consumed;
    size_t rest = size_ - consumed;
    if (consumed > 0 && rest > 0) std::memmove(buffer_.data(), buffer_.data() + consumed, rest);
    size_ = rest;
    if (size_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // one record does not fit
    // Fill the buffer as far as the stream gives without blocking twice on a slow pipe:
    // stop once something new arrived and the buffer is at least half full.
    while (!eof_ && size_ < buffer_.size()) {
      ASSIGN_OR_RETURN(size_t got, stream_->Read(buffer_.data() + size_, buffer_.size() - size_));
      if (got == 0) {
        eof_ = true;
        break;
      }
      size_ += got;
      if (size_ > rest && size_ >= buffer_.size() / 2) break;
    }
    return std::string_view(buffer_.data(), size_);
  }
  bool exhausted() const override { return eof_; }
  uint64_t offset() const override { return offset_; }

 private:
  std::unique_ptr<InputStream> stream_;
  std::vector<char> buffer_;
  size_t size_ = 0;
  uint64_t offset_ = 0;
  bool eof_ = false;
};

class PrefixedInputStream final : public InputStream {
 public:
  PrefixedInputStream(std::string prefix, std::unique_ptr<InputStream> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  Result<size_t> Read(char* dest, size_t capacity) override {
    if (used_ < prefix_.size()) {
      size_t n = std::min(capacity, prefix_.size() - used_);
      std::memcpy(dest, prefix_.data() + used_, n);
      used_ += n;
      return n;
    }
    return rest_->Read(dest, capacity);
  }

 private:
  std::string prefix_;
  size_t used_ = 0;
  std::unique_ptr<InputStream> rest_;
};

}  // namespace

std::unique_ptr<ByteSource> MemoryByteSource(std::string_view bytes) {
  return std::make_unique<MemorySource>(bytes, bytes.size());
}

std::unique_ptr<ByteSource> ChunkedMemoryByteSource(std::string_view bytes, size_t chunk) {
  return std::make_unique<MemorySource>(bytes, chunk);
}

std::unique_ptr<ByteSource> BufferedSource(std::unique_ptr<InputStream> stream,
                                           size_t buffer_bytes) {
  return std::make_unique<BufferedStreamSource>(std::move(stream), buffer_bytes);
}

std::unique_ptr<InputStream> PrefixedStream(std::string prefix, std::unique_ptr<InputStream> rest) {
  return std::make_unique<PrefixedInputStream>(std::move(prefix), std::move(rest));
}

}  // namespace stepstat
