// gzip and zstd decoders as InputStreams. Both read the compressed stream in fixed chunks
// and handle several members/frames back to back; sizes in the headers are never trusted.
#include <zlib.h>
#include <zstd.h>

#include <string>
#include <vector>

#include "io/input_stream.h"

namespace stepstat {

namespace {

constexpr size_t kChunk = 256 << 10;

class GzipInputStream final : public InputStream {
 public:
  GzipInputStream(std::unique_ptr<InputStream> compressed, std::string_view display_name)
      : in_(std::move(compressed)), name_(display_name), chunk_(kChunk) {
    // 15 + 32: zlib or gzip header, detected per member.
    init_ok_ = inflateInit2(&z_, 15 + 32) == Z_OK;
  }
  ~GzipInputStream() override { inflateEnd(&z_); }

  Result<size_t> Read(char* dest, size_t capacity) override {
    if (!init_ok_) return ErrorAt(name_, 0, "cannot start gzip decoder");
    z_.next_out = reinterpret_cast<Bytef*>(dest);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    const uInt out_start = z_.avail_out;
    while (z_.avail_out == out_start) {
      if (z_.avail_in == 0 && !in_eof_) {
        ASSIGN_OR_RETURN(size_t got, in_->Read(chunk_.data(), chunk_.size()));
        if (got == 0) in_eof_ = true;
        z_.next_in = reinterpret_cast<Bytef*>(chunk_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      bool drained = z_.avail_in == 0 && in_eof_;
      if (drained && !in_member_) return size_t{0};
      int rc = inflate(&z_, Z_NO_FLUSH);
      // At the end of input inflate may still flush output it holds; if it has none left
      // the member never ended.
      if (drained && rc != Z_STREAM_END && z_.avail_out == out_start)
        return ErrorAt(name_, 0, "corrupt gzip stream: truncated");
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        if (inflateReset(&z_) != Z_OK) return ErrorAt(name_, 0, "corrupt gzip stream");
        continue;  // another member may follow
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        std::string what = "corrupt gzip stream";
        if (z_.msg != nullptr) what += std::string(": ") + z_.msg;
        return ErrorAt(name_, 0, what);
      }
      in_member_ = true;
    }
    return static_cast<size_t>(out_start - z_.avail_out);
  }

 private:
  std::unique_ptr<InputStream> in_;
  std::string name_;
  std::vector<char> chunk_;
  z_stream z_{};
  bool init_ok_ = false;
  bool in_eof_ = false;
  bool in_member_ = false;
};

class ZstdInputStream final : public InputStream {
 public:
  ZstdInputStream(std::unique_ptr<InputStream> compressed, std::string_view display_name)
      : in_(std::move(compressed)),
        name_(display_name),
        chunk_(ZSTD_DStreamInSize()),
        dctx_(ZSTD_createDCtx()) {}
  ~ZstdInputStream() override { ZSTD_freeDCtx(dctx_); }

  Result<size_t> Read(char* dest, size_t capacity) override {
    if (dctx_ == nullptr) return ErrorAt(name_, 0, "cannot start zstd decoder");
    ZSTD_outBuffer out{dest, capacity, 0};
    while (out.pos == 0) {
      if (input_.pos == input_.size && !in_eof_) {
        ASSIGN_OR_RETURN(size_t got, in_->Read(chunk_.data(), chunk_.size()));
        if (got == 0) in_eof_ = true;
        input_ = ZSTD_inBuffer{chunk_.data(), got, 0};
      }
      bool drained = input_.pos == input_.size && in_eof_;
      if (drained && !frame_open_) return size_t{0};
      size_t rc = ZSTD_decompressStream(dctx_, &out, &input_);
      if (ZSTD_isError(rc))
        return ErrorAt(name_, 0, std::string("corrupt zstd stream: ") + ZSTD_getErrorName(rc));
      frame_open_ = rc != 0;  // 0: a frame just ended and its output is flushed
      if (drained && out.pos == 0 && frame_open_)
        return ErrorAt(name_, 0, "corrupt zstd stream: truncated");
    }
    return out.pos;
  }

 private:
  std::unique_ptr<InputStream> in_;
  std::string name_;
  std::vector<char> chunk_;
  ZSTD_DCtx* dctx_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool in_eof_ = false;
  bool frame_open_ = false;
};

}  // namespace

std::unique_ptr<InputStream> GzipStream(std::unique_ptr<InputStream> compressed,
                                        std::string_view display_name) {
  return std::make_unique<GzipInputStream>(std::move(compressed), display_name);
}

std::unique_ptr<InputStream> ZstdStream(std::unique_ptr<InputStream> compressed,
                                        std::string_view display_name) {
  return std::make_unique<ZstdInputStream>(std::move(compressed), display_name);
}

}  // namespace stepstat
