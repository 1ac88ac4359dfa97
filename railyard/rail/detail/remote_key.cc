#include "railyard/rail/detail/remote_key.h"

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/error.h"

namespace railyard::rail {
namespace {

constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kFlagRaw = 0x1;

}  // namespace

std::vector<std::byte> encode_remote_key(const RemoteKey& key) {
  std::vector<std::byte> out;
  out.reserve(kRemoteKeyHeaderSize + key.key.size());
  ByteWriter writer(out);
  writer.u8(kVersion);
  writer.u8(key.raw ? kFlagRaw : 0);
  writer.u16(key.key.size());
  writer.u32(0);
  writer.u64(key.base_address);
  writer.u64(key.length);
  writer.bytes(key.key);
  return out;
}

RemoteKey decode_remote_key(std::span<const std::byte> blob) {
  if (blob.size() < kRemoteKeyHeaderSize) {
    throw Error(fmt::format("remote memory key is {} bytes, shorter than its {}-byte header",
                            blob.size(), kRemoteKeyHeaderSize));
  }
  ByteReader reader(blob);
  const auto version = reader.u8();
  const auto flags = reader.u8();
  const std::size_t key_length = reader.u16();
  const auto reserved = reader.u32();
  const auto base_address = reader.u64();
  const auto length = reader.u64();
  if (version != kVersion) {
    throw Error(fmt::format("remote memory key has version {}, expected {}", version, kVersion));
  }
  if ((flags & ~kFlagRaw) != 0 || reserved != 0) {
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
  out.base_address = base_address;
  out.length = length;
  const auto key = reader.bytes(key_length);
  out.key.assign(key.begin(), key.end());
  return out;
}

}  // namespace railyard::rail
