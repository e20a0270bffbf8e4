// StringPool (trace.h): names copied into 64 KiB blocks, found again through a hash index.
#include <cstring>
#include <memory>
#include <unordered_map>

#include "stepstat/trace.h"

namespace stepstat {

namespace {

constexpr size_t kBlockSize = 64 * 1024;

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

}  // namespace

struct StringPool::Storage {
  std::unordered_map<std::string_view, NameId, Hash, std::equal_to<>> ids;
  std::vector<std::unique_ptr<char[]>> blocks;
  size_t block_used = 0;
  size_t block_size = 0;

  std::string_view Store(std::string_view text);
};

StringPool::StringPool() : storage_(std::make_unique<Storage>()) {
  Intern("");  // id 0 is the empty name: "unknown"
}
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

std::string_view StringPool::Storage::Store(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > kBlockSize / 4) {
    // Long names get a block of their own so they do not waste the shared block's tail.
    blocks.push_back(std::make_unique<char[]>(text.size()));
    std::memcpy(blocks.back().get(), text.data(), text.size());
    std::string_view stored(blocks.back().get(), text.size());
    // Keep the shared block current: swap the dedicated block behind it.
    if (blocks.size() >= 2) std::swap(blocks[blocks.size() - 1], blocks[blocks.size() - 2]);
    return stored;
  }
  if (blocks.empty() || block_used + text.size() > block_size) {
    blocks.push_back(std::make_unique<char[]>(kBlockSize));
    block_size = kBlockSize;
    block_used = 0;
  }
  char* dest = blocks.back().get() + block_used;
  std::memcpy(dest, text.data(), text.size());
  block_used += text.size();
  return {dest, text.size()};
}

NameId StringPool::Intern(std::string_view text) {
  if (auto it = storage_->ids.find(text); it != storage_->ids.end()) return it->second;
  std::string_view stored = storage_->Store(text);
  auto id = static_cast<NameId>(views_.size());
  views_.push_back(stored);
  storage_->ids.emplace(stored, id);
  return id;
}

}  // namespace stepstat
