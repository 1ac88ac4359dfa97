#include "railyard/transports/remote_key.h"

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard {
namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kFlagRaw = 0x1;

void put(std::vector<std::byte>& out, std::uint64_t value, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) {
    out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xFFU));
  }
}

std::uint64_t get(std::span<const std::byte> in, std::size_t offset, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    value |= static_cast<std::uint64_t>(in[offset + i]) << (8 * i);
  }
  return value;
}

}  // namespace

std::vector<std::byte> encode_remote_key(const RemoteKey& key) {
  std::vector<std::byte> out;
  out.reserve(kRemoteKeyHeaderSize + key.key.size());
  put(out, kVersion, 1);
  put(out, key.raw ? kFlagRaw : 0, 1);
  put(out, key.key.size(), 2);
  put(out, 0, 4);
  put(out, key.base_address, 8);
  put(out, key.length, 8);
  out.insert(out.end(), key.key.begin(), key.key.end());
  return out;
}

RemoteKey decode_remote_key(std::span<const std::byte> blob) {
  if (blob.size() < kRemoteKeyHeaderSize) {
    throw Error(fmt::format("remote memory key is {} bytes, shorter than its {}-byte header",
                            blob.size(), kRemoteKeyHeaderSize));
  }
  const auto version = get(blob, 0, 1);
  const auto flags = get(blob, 1, 1);
  const auto key_length = get(blob, 2, 2);
  const auto reserved = get(blob, 4, 4);
  if (version != kVersion) {
    throw Error(fmt::format("remote memory key has version {}, expected {}", version, kVersion));
  }
  if ((flags & ~std::uint64_t{kFlagRaw}) != 0 || reserved != 0) {
    throw Error(fmt::format("remote memory key has unknown flags 0x{:x} or reserved bits 0x{:x}",
                            flags, reserved));
  }
  if (key_length == 0 || key_length > kMaxRemoteKeyLength ||
      blob.size() != kRemoteKeyHeaderSize + key_length) {
    throw Error(fmt::format(
        "remote memory key declares a {}-byte key but carries {} bytes after its header "
        "(keys are 1 to {} bytes)",
        key_length, blob.size() - kRemoteKeyHeaderSize, kMaxRemoteKeyLength));
  }
  if ((flags & kFlagRaw) == 0 && key_length != sizeof(std::uint64_t)) {
    throw Error(
        fmt::format("remote memory key is not raw but is {} bytes long, expected 8", key_length));
  }
  RemoteKey out;
  out.raw = (flags & kFlagRaw) != 0;
  out.base_address = get(blob, 8, 8);
  out.length = get(blob, 16, 8);
  out.key.assign(blob.begin() + kRemoteKeyHeaderSize, blob.end());
  return out;
}

}  // namespace railyard
