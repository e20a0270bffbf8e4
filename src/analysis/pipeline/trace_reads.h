// How the passes of one run read their inputs: each pass asks for a whole input, its GPU
// side or its launch side. nsys CSV and SQLite files stream from the file on every pass:
// memory stays bounded, a pass reads again rather than hold. A Kineto trace costs far more
// to parse (JSON, sorted by the reader) than to read back, so it is parsed once: its records
// are kept, in a scratch file that memory does not grow with, its names in memory, and every
// pass replays them batch for batch as the reader gave them, then finishes its sink as a
// read would (TraceSink's contract).
//
// An input is known again by what it is (path or bytes, kind, the name messages give it),
// not by the TraceInput object, so that one command's engine calls can share one TraceReads
// (`stepstat report`: the steps, then the summary from the same parse).
//
// Threads: Whole and a Kineto input's first read change what is kept and run on one thread;
// GpuSide and LaunchSide of a CSV or SQLite input keep nothing, and those of a kept input
// only read what is kept (the scratch file locks each read, io/temp_file.h), so both may
// run on two threads at once once Prepare returned (the steps pipeline reads both sides
// together, two_sides.h).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "stepstat/read.h"
#include "stepstat/trace.h"

namespace stepstat {

class TraceReads {
 public:
  TraceReads();
  ~TraceReads();
  TraceReads(const TraceReads&) = delete;
  TraceReads& operator=(const TraceReads&) = delete;

  /// Everything `input` holds.
  Result<ReadReport> Whole(const TraceInput& input, TraceSink& sink);
  /// Its GPU side: a kern-exec trace alone stands in for the GPU trace (its launch rows
  /// become kernels); an SQLite export's GPU tables alone; a kept trace's GPU operations.
  Result<ReadReport> GpuSide(const TraceInput& input, TraceSink& sink);
  /// Its launch calls (an SQLite export's launch half alone, a kept trace's calls).
  Result<ReadReport> LaunchSide(const TraceInput& input, TraceSink& sink);
  /// Whether `input`'s records are kept: its next read replays them, reading no file.
  bool Keeps(const TraceInput& input) const;
  /// Parses `input` now if its records are to be kept (and are not yet): its GpuSide and
  /// LaunchSide may then run on two threads at once.
  Status Prepare(const TraceInput& input);

  struct Recording;  ///< one parse's records (trace_reads.cc)

 private:
  /// The records of `input` when it is one to keep (Kineto), parsed on first use; null
  /// for inputs that stream.
  Result<const Recording*> RecordingOf(const TraceInput& input);

  std::vector<std::pair<TraceInput, std::unique_ptr<Recording>>> recordings_;
};

}  // namespace stepstat
