#include "synth/sqlite_schema.h"

#include <array>
#include <utility>

namespace stepstat::synth {
namespace {

// Copied column by column from a real 2025.3.1 export (its comments left out).
constexpr std::array<std::string_view, 8> kTables = {
    R"(CREATE TABLE StringIds (
    id INTEGER NOT NULL PRIMARY KEY,
    value TEXT NOT NULL))",
    R"(CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    id INTEGER NOT NULL PRIMARY KEY,
    name TEXT,
    label TEXT))",
    R"(CREATE TABLE META_DATA_EXPORT (
    name TEXT NOT NULL,
    value TEXT))",
    R"(CREATE TABLE TARGET_INFO_GPU (
    vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
    isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER,
    clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER,
    chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT, revision INTEGER,
    nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER, maxRegistersPerBlock INTEGER,
    maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER,
    maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER,
    maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER,
    maxBlockDimX INTEGER, maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER,
    maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER,
    smMajor INTEGER, smMinor INTEGER))",
    R"(CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    eventClass INTEGER NOT NULL,
    globalTid INTEGER,
    correlationId INTEGER,
    nameId INTEGER NOT NULL,
    returnValue INTEGER NOT NULL,
    callchainId INTEGER))",
    R"(CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL,
    greenContextId INTEGER,
    streamId INTEGER NOT NULL,
    correlationId INTEGER,
    globalPid INTEGER,
    demangledName INTEGER NOT NULL,
    shortName INTEGER NOT NULL,
    mangledName INTEGER,
    launchType INTEGER,
    cacheConfig INTEGER,
    registersPerThread INTEGER NOT NULL,
    gridX INTEGER NOT NULL,
    gridY INTEGER NOT NULL,
    gridZ INTEGER NOT NULL,
    blockX INTEGER NOT NULL,
    blockY INTEGER NOT NULL,
    blockZ INTEGER NOT NULL,
    staticSharedMemory INTEGER NOT NULL,
    dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL,
    localMemoryTotal INTEGER NOT NULL,
    gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER,
    graphNodeId INTEGER,
    sharedMemoryLimitConfig INTEGER))",
    R"(CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL,
    greenContextId INTEGER,
    streamId INTEGER NOT NULL,
    correlationId INTEGER,
    globalPid INTEGER,
    bytes INTEGER NOT NULL,
    copyKind INTEGER NOT NULL,
    deprecatedSrcId INTEGER,
    srcKind INTEGER,
    dstKind INTEGER,
    srcDeviceId INTEGER,
    srcContextId INTEGER,
    dstDeviceId INTEGER,
    dstContextId INTEGER,
    migrationCause INTEGER,
    graphNodeId INTEGER,
    virtualAddress INTEGER,
    copyCount INTEGER))",
    // No real 2025.3 export here has memsets; these are the columns nsys documents.
    R"(CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL,
    greenContextId INTEGER,
    streamId INTEGER NOT NULL,
    correlationId INTEGER,
    globalPid INTEGER,
    value INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    graphNodeId INTEGER,
    memKind INTEGER))",
};

constexpr std::string_view kNvtxTable = R"(CREATE TABLE NVTX_EVENTS (
    start INTEGER NOT NULL,
    end INTEGER,
    eventType INTEGER NOT NULL,
    rangeId INTEGER,
    category INTEGER,
    color INTEGER,
    text TEXT,
    globalTid INTEGER,
    endGlobalTid INTEGER,
    textId INTEGER,
    domainId INTEGER,
    uint64Value INTEGER,
    int64Value INTEGER,
    doubleValue REAL,
    uint32Value INTEGER,
    int32Value INTEGER,
    floatValue REAL,
    jsonTextId INTEGER,
    jsonText TEXT,
    binaryData TEXT))";

// clang-format off
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kMemcpyOpers = {{
    {"CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
    {"CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
    {"CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
    {"CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
    {"CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
    {"CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
    {"CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
    {"CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
    {"CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
    {"CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
    {"CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
    {"CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
    {"CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"},
    {"CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"},
}};
// clang-format on

}  // namespace

std::span<const std::string_view> NsysSqliteTables() { return kTables; }
std::string_view NsysNvtxTable() { return kNvtxTable; }
std::span<const std::pair<std::string_view, std::string_view>> MemcpyOpers() {
  return kMemcpyOpers;
}

}  // namespace stepstat::synth
