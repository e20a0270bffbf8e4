// How far a Run* call has read its inputs, for a face that shows it (the CLI's line on a
// terminal; the Python module could poll it the same way). The face owns a ProgressMeter,
// hands it over in RunOptions::progress and reads Snapshot() from any thread while the call
// runs; the library writes it. Nothing here prints or sleeps.
//
//   ProgressMeter meter;
//   options.progress = &meter;        // read meter.Snapshot() from another thread meanwhile
//   Result<SummaryResult> summary = RunSummary(options);
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace stepstat {

/// What a meter said at one moment.
struct ProgressSnapshot {
  /// Bytes of input files read so far, every pass counted (a file read three times counts
  /// three times): bytes as stored, so a .gz counts its compressed bytes; an nsys SQLite
  /// export counts the pages SQLite read from it (up to its size per open).
  uint64_t bytes_read = 0;
  /// What the reads planned and begun so far will read in all: grows when a call plans or
  /// begins more reads, never below bytes_read, never below what an earlier Snapshot said
  /// (so it may stay above what is finally read); 0 when nothing is known yet.
  uint64_t bytes_total = 0;
  /// What the calls planned to read to the end before they began (bytes_total's floor).
  uint64_t bytes_planned = 0;
  /// `ranks`: traces finished (well or not) and traces to summarize; 0 and 0 elsewhere.
  int64_t files_done = 0;
  int64_t files_total = 0;
};

/// Counts written by the library's reader threads and read by a face's thread.
/// Every count is its own atomic, only ever added to (relaxed: no count orders another's
/// memory), by any number of reader threads at once; one add per chunk read (256 KiB of a
/// file, a compressed block, a SQLite page), never per row. A Snapshot reads the counts one
/// after another, so it is a consistent sum only once the writers stopped; until then each
/// figure is at most a chunk behind, and bytes_total is kept at least bytes_read. Snapshot
/// itself writes only the highest total it returned (an atomic maximum).
class ProgressMeter {
 public:
  ProgressSnapshot Snapshot() const;

  // Written by the library (a face only reads).
  /// Bytes a call is about to read to the end (its whole passes over its inputs).
  void AddPlanned(uint64_t bytes) { planned_.fetch_add(bytes, std::memory_order_relaxed); }
  /// A file opened for reading: its size.
  void AddOpened(uint64_t bytes) { opened_.fetch_add(bytes, std::memory_order_relaxed); }
  /// Bytes read from an opened file.
  void AddRead(uint64_t bytes) { read_.fetch_add(bytes, std::memory_order_relaxed); }
  /// A file closed before its end (a format sniff, a bounded check): what it left unread.
  void AddUnread(uint64_t bytes) { unread_.fetch_add(bytes, std::memory_order_relaxed); }
  void AddFiles(int64_t files) { files_total_.fetch_add(files, std::memory_order_relaxed); }
  void FileDone() { files_done_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> planned_{0};
  std::atomic<uint64_t> opened_{0};
  std::atomic<uint64_t> read_{0};
  std::atomic<uint64_t> unread_{0};
  std::atomic<int64_t> files_total_{0};
  std::atomic<int64_t> files_done_{0};
  mutable std::atomic<uint64_t> highest_total_{0};  ///< what Snapshot said at most
};

/// The text of a progress line, without the "stepstat: " a face puts in front:
/// "reading 1.2 GB of 3.3 GB, 1.4 GB/s, 2 s left" (decimal units; the rate is the average
/// over `seconds_elapsed`). With no total known, or the total reached (more may come: a
/// call plans its reads when it starts), it says neither a total nor a time left; with no
/// rate yet, no time left. Ranks add ", 3 of 8 traces".
std::string ProgressLine(const ProgressSnapshot& now, double seconds_elapsed);

/// "1.2 GB", "512 B", "3.0 kB": decimal units, one decimal from kB up.
std::string ProgressBytes(uint64_t bytes);

/// "2 s", "1 min 5 s", "2 h 3 min": whole seconds, rounded up (a time left never says 0 s
/// while bytes remain).
std::string ProgressDuration(double seconds);

}  // namespace stepstat
