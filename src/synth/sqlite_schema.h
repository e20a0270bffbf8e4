// The tables of an `nsys export --type sqlite` file (schema 3.20, nsys 2025.3) that a
// summary reads, with the columns, types and constraints of the real export, in its order.
#pragma once

#include <span>
#include <string_view>
#include <utility>

namespace stepstat::synth {

/// CREATE TABLE statements for StringIds, the enums, META_DATA_EXPORT, TARGET_INFO_GPU and
/// the CUPTI kernel, memcpy, memset and runtime tables. nsys creates no indexes on them.
std::span<const std::string_view> NsysSqliteTables();

/// CREATE TABLE NVTX_EVENTS (written with --nvtx).
std::string_view NsysNvtxTable();

/// ENUM_CUDA_MEMCPY_OPER rows by id, (name, label), as nsys 2025.3 writes them.
std::span<const std::pair<std::string_view, std::string_view>> MemcpyOpers();

}  // namespace stepstat::synth
