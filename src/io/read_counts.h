// How many times each input file is opened, and how many of those reads reach its end: the
// check behind "each input read as few times as the result needs" (tests/read_count_test.cc
// and the table in bench/results/). Process-wide and off unless turned on: while off, an
// open costs one relaxed atomic load and nothing is wrapped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

namespace stepstat {

class ByteSource;

struct FileReads {
  int64_t opens = 0;   ///< every open: a format sniff, a bounded prefix check, a full read
  int64_t to_end = 0;  ///< opens whose bytes were read to the end (SQLite: not known, 0)
};

/// Starts counting from zero.
void StartCountingReads();
/// Stops counting; the counts by file name (the path's filename: tests run in temp folders).
std::map<std::string, FileReads> StopCountingReads();

/// Called where a file is opened (src/io, and the SQLite reader, whose library opens it).
void CountOpen(const std::filesystem::path& path);
/// A read of the whole file at once (a whole-file map): an open that reaches its end.
void CountWholeRead(const std::filesystem::path& path);
/// While counting, `source` wrapped so that reaching its end counts; else `source` itself.
std::unique_ptr<ByteSource> CountedSource(const std::filesystem::path& path,
                                          std::unique_ptr<ByteSource> source);

}  // namespace stepstat
