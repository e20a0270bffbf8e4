#include "readers/sqlite/sqlite_table_pages.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace stepstat::nsys_sqlite {
namespace {

constexpr std::string_view kDeclined = "page read declined: ";
// SQLite's BTCURSOR_MAX_DEPTH is 20 pages from the root to a leaf: at most 19 interior
// pages above a leaf. A deeper tree is one SQLite calls corrupt.
constexpr size_t kMaxInteriorDepth = 19;
// The page holding the byte at 1 GiB is never part of a table (SQLite's PENDING_BYTE).
constexpr uint64_t kPendingByte = 0x40000000;
constexpr uint8_t kInteriorTable = 0x05;
constexpr uint8_t kLeafTable = 0x0D;

uint32_t Big16(const uint8_t* p) { return static_cast<uint32_t>(p[0]) << 8 | p[1]; }
uint32_t Big32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}

}  // namespace

Status PagesDeclined(std::string_view display_name, std::string_view why) {
  return ErrorAt(display_name, 0, std::string(kDeclined) + std::string(why));
}

bool IsPagesDeclined(const Status& status) {
  return !status.ok() && status.message().find(kDeclined) != std::string::npos;
}

Result<std::optional<PageLayout>> ReadPageLayout(RandomAccessFile& file) {
  std::optional<PageLayout> none;
  uint8_t header[100];
  if (file.size() < sizeof header) return none;
  RETURN_IF_ERROR(file.ReadAt(0, header, sizeof header));
  if (std::memcmp(header, "SQLite format 3", 16) != 0) return none;
  const uint32_t page_size = Big16(header + 16) == 1 ? 65536 : Big16(header + 16);
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) return none;
  // Versions 2 (WAL): pages may live in the -wal file instead. Above 2: a newer format.
  if (header[18] != 1 || header[19] != 1) return none;
  // The payload fractions SQLite requires; the usable size it requires.
  if (header[21] != 64 || header[22] != 32 || header[23] != 32) return none;
  if (page_size - header[20] < 480) return none;
  if (file.size() % page_size != 0) return none;  // SQLite would read a short last page
  const uint64_t file_pages = file.size() / page_size;
  // The size in the header counts when the change counter says it is current (as SQLite).
  uint64_t pages = file_pages;
  const uint32_t header_pages = Big32(header + 28);
  if (header_pages != 0 && Big32(header + 24) == Big32(header + 92)) {
    if (header_pages > file_pages) return none;
    pages = header_pages;
  }
  if (pages > UINT32_MAX) return none;
  PageLayout layout;
  layout.page_size = page_size;
  layout.usable_size = page_size - header[20];
  layout.page_count = static_cast<uint32_t>(pages);
  return std::optional<PageLayout>(layout);
}

TablePages::TablePages(std::shared_ptr<RandomAccessFile> file, PageLayout layout,
                       std::string_view display_name, size_t run_bytes)
    : file_(std::move(file)),
      layout_(layout),
      display_name_(display_name),
      run_pages_max_(std::max<size_t>(run_bytes / layout.page_size, 1)),
      stack_(kMaxInteriorDepth) {}

Result<std::unique_ptr<TablePages>> TablePages::Open(std::shared_ptr<RandomAccessFile> file,
                                                     PageLayout layout, uint32_t root_page,
                                                     std::string_view display_name,
                                                     size_t run_bytes) {
  std::unique_ptr<TablePages> none;
  if (root_page < 2 || root_page > layout.page_count) return none;
  if (root_page == kPendingByte / layout.page_size + 1) return none;
  std::unique_ptr<TablePages> pages(
      new TablePages(std::move(file), layout, display_name, run_bytes));
  Frame& root = pages->stack_[0];
  root.bytes.resize(layout.page_size);
  RETURN_IF_ERROR(pages->file_->ReadAt(uint64_t{root_page - 1} * layout.page_size,
                                       root.bytes.data(), layout.page_size));
  root.page.data = root.bytes.data();
  root.page.number = root_page;
  if (!pages->InitPage(root.page, /*is_root=*/true).ok()) return none;
  pages->pages_visited_ = 1;
  if (root.page.leaf) {
    pages->leaf_ = root.page;
    pages->have_leaf_ = true;
  } else {
    pages->depth_ = 1;
  }
  return pages;
}

Status TablePages::Declined(std::string_view why) const {
  return PagesDeclined(display_name_, why);
}

Status TablePages::InitPage(Page& page, bool is_root) const {
  page.header = page.number == 1 ? 100 : 0;
  const uint8_t type = page.data[page.header];
  if (type != kLeafTable && type != kInteriorTable) return Declined("not a table B-tree page");
  page.leaf = type == kLeafTable;
  page.cells = Big16(page.data + page.header + 3);
  const uint32_t header_size = page.leaf ? 8 : 12;
  if (page.cells > (layout_.page_size - 8) / 6 ||
      page.header + header_size + 2 * page.cells > layout_.usable_size) {
    return Declined("more cells than the page holds");
  }
  // SQLite calls a page below the root without cells, or an interior root without cells,
  // corrupt.
  if (page.cells == 0 && !(is_root && page.leaf)) return Declined("a page without cells");
  return Status::Ok();
}

Result<uint32_t> TablePages::Child(const Page& page, uint32_t index) const {
  if (index == page.cells) return Big32(page.data + page.header + 8);
  const uint32_t first = page.header + 12 + 2 * page.cells;
  const uint32_t offset = Big16(page.data + page.header + 12 + 2 * index);
  if (offset < first || offset + 4 > layout_.usable_size) return Declined("a cell out of bounds");
  return Big32(page.data + offset);
}

Result<const uint8_t*> TablePages::FetchChild(const Frame& parent, uint32_t index,
                                              uint32_t number) {
  const uint32_t page_size = layout_.page_size;
  if (number >= run_first_ && number - run_first_ < run_count_) {
    return run_.data() + size_t{number - run_first_} * page_size;
  }
  // nsys writes a table's leaves mostly one after another: read the run of consecutive page
  // numbers among the next children at once.
  const uint32_t pending_page = static_cast<uint32_t>(kPendingByte / page_size + 1);
  uint32_t count = 1;
  while (count < run_pages_max_ && index + count <= parent.page.cells) {
    Result<uint32_t> next = Child(parent.page, index + count);
    if (!next.ok() || *next != number + count || *next > layout_.page_count ||
        *next == pending_page) {
      break;
    }
    ++count;
  }
  run_.resize(size_t{count} * page_size);
  run_first_ = number;
  run_count_ = 0;  // until the read succeeds
  RETURN_IF_ERROR(file_->ReadAt(uint64_t{number - 1} * page_size, run_.data(), run_.size()));
  run_count_ = count;
  return run_.data();
}

Status TablePages::PushInterior(const Page& page) {
  if (depth_ >= kMaxInteriorDepth) return Declined("a tree deeper than SQLite allows");
  Frame& frame = stack_[depth_];
  frame.bytes.assign(page.data, page.data + layout_.page_size);
  frame.page = page;
  frame.page.data = frame.bytes.data();
  frame.next_child = 0;
  ++depth_;
  return Status::Ok();
}

Result<bool> TablePages::NextLeaf() {
  const uint32_t pending_page = static_cast<uint32_t>(kPendingByte / layout_.page_size + 1);
  while (depth_ > 0) {
    Frame& top = stack_[depth_ - 1];
    if (top.next_child > top.page.cells) {
      --depth_;
      continue;
    }
    const uint32_t index = top.next_child++;
    ASSIGN_OR_RETURN(uint32_t number, Child(top.page, index));
    if (number < 2 || number > layout_.page_count || number == pending_page) {
      return Declined("a child page number out of bounds");
    }
    // Each page once in a sound tree: more visits than pages is a cycle or a shared page.
    if (++pages_visited_ > layout_.page_count) return Declined("more pages visited than exist");
    Page page;
    ASSIGN_OR_RETURN(page.data, FetchChild(top, index, number));
    page.number = number;
    RETURN_IF_ERROR(InitPage(page, /*is_root=*/false));
    if (page.leaf) {
      leaf_ = page;
      return true;
    }
    RETURN_IF_ERROR(PushInterior(page));
  }
  return false;
}

Result<bool> TablePages::Next(int64_t& rowid, std::string_view& record) {
  for (;;) {
    if (!have_leaf_) {
      if (done_) return false;
      ASSIGN_OR_RETURN(bool more, NextLeaf());
      if (!more) {
        done_ = true;
        return false;
      }
      have_leaf_ = true;
      leaf_next_cell_ = 0;
    }
    if (leaf_next_cell_ == leaf_.cells) {
      have_leaf_ = false;
      continue;
    }
    const uint8_t* data = leaf_.data;
    const uint32_t first = leaf_.header + 8 + 2 * leaf_.cells;
    const uint32_t offset = Big16(data + leaf_.header + 8 + 2 * leaf_next_cell_++);
    const uint32_t usable = layout_.usable_size;
    if (offset < first || offset >= usable) return Declined("a cell out of bounds");
    const uint8_t* p = data + offset;
    const uint8_t* end = data + usable;
    uint64_t payload_size = 0;
    uint64_t id = 0;
    if (!ReadVarint(p, end, payload_size) || !ReadVarint(p, end, id)) {
      return Declined("a cell out of bounds");
    }
    // Larger payloads keep only part on the page and spill the rest to overflow pages.
    if (payload_size > usable - 35) return Declined("a row on overflow pages");
    if (payload_size > static_cast<uint64_t>(end - p)) return Declined("a cell out of bounds");
    rowid = static_cast<int64_t>(id);
    record = std::string_view(reinterpret_cast<const char*>(p), payload_size);
    return true;
  }
}

}  // namespace stepstat::nsys_sqlite
