// The rows of one SQLite table read from its B-tree pages directly, past SQLite's VM, in
// the order a plain `SELECT ... FROM t` walks them (cell order: rowid order). Only a file
// laid out as SQLite itself would read it is walked: anything unexpected (a WAL database,
// an unknown page type, a page number, cell offset, count, varint or length out of bounds,
// a payload spilling to overflow pages, a tree deeper than SQLite allows, more pages visited
// than the file has) fails with a status that says the pages were not read, and the caller
// reads the table through SQL instead, which then gives its own answer or its own error.
// Nothing read from the file is trusted before it is bounds-checked. Format:
// https://www.sqlite.org/fileformat2.html (sections 1.3, 1.6, 2.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "io/random_access_file.h"
#include "stepstat/status.h"

namespace stepstat::nsys_sqlite {

/// SQLite's varint at `p` (7 bits a byte, the high bit set on all but the last, a 9th byte
/// of 8 bits), `p` moved past it; false when it runs past `end`. Inline: the record decoder
/// reads one per column per row.
inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t& value) {
  value = 0;
  for (int i = 0; i < 8; ++i) {
    if (p == end) return false;
    const uint8_t byte = *p++;
    value = value << 7 | (byte & 0x7F);
    if ((byte & 0x80) == 0) return true;
  }
  if (p == end) return false;
  value = value << 8 | *p++;
  return true;
}

/// What page 1's header says about every page.
struct PageLayout {
  uint32_t page_size = 0;
  uint32_t usable_size = 0;  ///< page size less the reserved bytes at each page's end
  uint32_t page_count = 0;   ///< pages the file holds (as SQLite counts them)
};

/// The layout, or nullopt when the file is not one the page reader reads (not SQLite, a WAL
/// database, sizes out of range, a header that claims more pages than the file holds).
Result<std::optional<PageLayout>> ReadPageLayout(RandomAccessFile& file);

/// The status every refusal of the page reader carries ("... page read declined: why").
Status PagesDeclined(std::string_view display_name, std::string_view why);
bool IsPagesDeclined(const Status& status);

/// Bytes a run of consecutive leaf pages is read in at most (one reused buffer).
inline constexpr size_t kPageRunBytes = size_t{1} << 20;

class TablePages {
 public:
  /// Reads the root page: nullopt when it is not a table B-tree page SQLite would walk.
  static Result<std::unique_ptr<TablePages>> Open(std::shared_ptr<RandomAccessFile> file,
                                                  PageLayout layout, uint32_t root_page,
                                                  std::string_view display_name,
                                                  size_t run_bytes = kPageRunBytes);

  /// The next row: its rowid and its record (all of it on the page). False at the end. The
  /// record is valid until the next call.
  Result<bool> Next(int64_t& rowid, std::string_view& record);

 private:
  struct Page {
    const uint8_t* data = nullptr;  ///< page_size bytes
    uint32_t number = 0;
    uint32_t header = 0;  ///< 100 on page 1, else 0
    uint32_t cells = 0;
    bool leaf = false;
  };
  struct Frame {  ///< an interior page on the way down, with the next child to visit
    std::vector<uint8_t> bytes;
    Page page;
    uint32_t next_child = 0;  ///< 0..cells; `cells` is the right-most pointer
  };

  TablePages(std::shared_ptr<RandomAccessFile> file, PageLayout layout,
             std::string_view display_name, size_t run_bytes);
  Status Declined(std::string_view why) const;
  /// Checks a page's header; `page.data` and `page.number` set.
  Status InitPage(Page& page, bool is_root) const;
  Result<uint32_t> Child(const Page& page, uint32_t index) const;
  /// The bytes of `number`, reading it with the consecutive children of `parent` after
  /// `index` (as far as a run goes) unless it is in the run read last.
  Result<const uint8_t*> FetchChild(const Frame& parent, uint32_t index, uint32_t number);
  Status PushInterior(const Page& page);
  /// Moves to the next leaf (false: the tree is done).
  Result<bool> NextLeaf();

  std::shared_ptr<RandomAccessFile> file_;
  PageLayout layout_;
  std::string display_name_;
  size_t run_pages_max_;
  std::vector<uint8_t> run_;  ///< pages [run_first_, run_first_ + run_count_)
  uint32_t run_first_ = 0;
  uint32_t run_count_ = 0;
  std::vector<Frame> stack_;  ///< interior pages from the root down; at most kMaxDepth
  size_t depth_ = 0;          ///< frames in use
  Page leaf_;
  uint32_t leaf_next_cell_ = 0;
  bool have_leaf_ = false;
  bool done_ = false;
  uint64_t pages_visited_ = 0;
};

}  // namespace stepstat::nsys_sqlite
