#pragma once
// Internal: the constants of MXNet's `.params` layout (see docs/formats.md).
#include <bit>
#include <cstdint>

namespace braid::io::detail {

static_assert(std::endian::native == std::endian::little,
              ".params files are little-endian and are read and written as raw host bytes");

/// First u64 of every file (MXNet's kMXAPINDArrayListMagic); a u64 0 (reserved) follows.
inline constexpr uint64_t kListMagic = 0x112;

/// First u32 of a record. A record without one of these starts with its u32 ndim (pre-V1).
inline constexpr uint32_t kRecordV1Magic = 0xF993FAC8;  // int64 dims, no storage type
inline constexpr uint32_t kRecordV2Magic = 0xF993FAC9;  // adds the storage type
inline constexpr uint32_t kRecordV3Magic = 0xF993FACA;  // numpy shape semantics

/// Storage types (the stype field); only dense arrays are supported.
inline constexpr int32_t kStypeDefault = 0;
inline constexpr int32_t kStypeRowSparse = 1;
inline constexpr int32_t kStypeCSR = 2;

/// Device types of the context field (MXNet's Context::DeviceType).
inline constexpr int32_t kDevCPU = 1;
inline constexpr int32_t kDevGPU = 2;
inline constexpr int32_t kDevCPUPinned = 3;
inline constexpr int32_t kDevCPUShared = 5;

}  // namespace braid::io::detail
