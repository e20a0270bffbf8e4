// The bytes of one input, wherever they are: its file, or memory a caller handed over.
// Analyses that read an input's text themselves (checks, kern_sum listings) open it here, so
// they need not know where it lives.
#pragma once

#include <memory>
#include <string>

#include "io/byte_source.h"
#include "stepstat/read.h"

namespace stepstat {

/// OpenMemoryByteSource of `input.bytes` when set, else OpenByteSource of `input.path`.
Result<std::unique_ptr<ByteSource>> OpenInputSource(const TraceInput& input);

/// Why an input of `kind` (SQLite, .nsys-rep) cannot be read from bytes: one line.
std::string NotReadableInMemory(InputKind kind);

}  // namespace stepstat
