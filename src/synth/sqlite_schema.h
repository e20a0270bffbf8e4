// The tables of an `nsys export --type sqlite` file (schema 3.20, nsys 2025.3) that a
// summary reads, with the columns, types and constraints of the real export, in its order.
#pragma once

#include <span>
#include <string_view>

namespace stepstat::synth {

/// CREATE TABLE statements for StringIds, the enums, META_DATA_EXPORT, TARGET_INFO_GPU and
/// the CUPTI kernel, memcpy, memset and runtime tables. nsys creates no indexes on them.
std::span<const std::string_view> NsysSqliteTables();

/// CREATE TABLE NVTX_EVENTS (written with --nvtx).
std::string_view NsysNvtxTable();

/// ENUM_CUDA_MEMCPY_OPER labels by id (nsys 2025.3).
std::span<const std::string_view> MemcpyOperLabels();

}  // namespace stepstat::synth
