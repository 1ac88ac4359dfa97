// The wire form of a memory registration that a peer can target with RMA.
// Layout (little-endian), documented in docs/wire-formats.md:
//   0  u8   version (1)
//   1  u8   flags: bit 0 = raw key (FI_MR_RAW providers)
//   2  u16  key length in bytes
//   4  u32  reserved, 0
//   8  u64  base address the peer adds offsets to (remote VA or 0)
//   16 u64  length of the region in bytes
//   24      key bytes (8-byte u64 key, or the provider's raw key)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace railyard::rail {

struct RemoteKey {
  std::uint64_t base_address = 0;
  std::uint64_t length = 0;
  bool raw = false;
  std::vector<std::byte> key;
};

inline constexpr std::size_t kRemoteKeyHeaderSize = 24;
inline constexpr std::size_t kMaxRemoteKeyLength = 1024;

[[nodiscard]] std::vector<std::byte> encode_remote_key(const RemoteKey& key);

// Throws Error describing what is wrong with a malformed blob.
[[nodiscard]] RemoteKey decode_remote_key(std::span<const std::byte> blob);

}  // namespace railyard::rail
