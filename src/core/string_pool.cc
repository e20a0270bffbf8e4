#include <cstring>
#include <memory>

#include "stepstat/trace.h"

namespace stepstat {

namespace {
constexpr size_t kBlockSize = 64 * 1024;
}

size_t StringPool::Hash::operator()(std::string_view s) const noexcept {
  return std::hash<std::string_view>{}(s);
}

StringPool::StringPool() { Intern(""); }  // id 0 is the empty name: "unknown"
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

std::string_view StringPool::Store(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > kBlockSize / 4) {
    // Long names get a block of their own so they do not waste the shared block's tail.
    blocks_.push_back(std::make_unique<char[]>(text.size()));
    std::memcpy(blocks_.back().get(), text.data(), text.size());
    std::string_view stored(blocks_.back().get(), text.size());
    // Keep the shared block current: swap the dedicated block behind it.
    if (blocks_.size() >= 2) std::swap(blocks_[blocks_.size() - 1], blocks_[blocks_.size() - 2]);
    return stored;
  }
  if (blocks_.empty() || block_used_ + text.size() > block_size_) {
    blocks_.push_back(std::make_unique<char[]>(kBlockSize));
    block_size_ = kBlockSize;
    block_used_ = 0;
  }
  char* dest = blocks_.back().get() + block_used_;
  std::memcpy(dest, text.data(), text.size());
  block_used_ += text.size();
  return {dest, text.size()};
}

NameId StringPool::Intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  std::string_view stored = Store(text);
  auto id = static_cast<NameId>(views_.size());
  views_.push_back(stored);
  ids_.emplace(stored, id);
  return id;
}

}  // namespace stepstat
