#include "railyard/rstream/detail/wire.h"

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/rstream/channel_options.h"

namespace railyard::rstream {

std::vector<std::byte> encode_connect_data(const ConnectData& data) {
  std::vector<std::byte> out;
  out.reserve(kConnectDataSize);
  ByteWriter writer(out);
  writer.u8(kConnectMagic);
  writer.u8(kWireVersion);
  writer.u16(data.receive_credits);
  writer.u16(data.iomap_slots);
  writer.u16(0);
  writer.u32(data.ring_size);
  writer.u32(0);
  writer.u64(data.ring_address);
  writer.u64(data.ring_key);
  return out;
}

std::optional<ConnectData> decode_connect_data(std::span<const std::byte> blob,
                                               std::string& error) {
  if (blob.size() < kConnectDataSize) {
    error = fmt::format("connection data of {} bytes, expected {}", blob.size(), kConnectDataSize);
    return std::nullopt;
  }
  ByteReader reader(blob);
  const std::uint8_t magic = reader.u8();
  const std::uint8_t version = reader.u8();
  if (magic != kConnectMagic) {
    error = fmt::format(
        "connection data starts with 0x{:02x}, expected 0x{:02x}: the peer is not "
        "a railyard stream channel",
        magic, kConnectMagic);
    return std::nullopt;
  }
  if (version != kWireVersion) {
    error = fmt::format("peer speaks stream protocol version {}, this side version {}", version,
                        kWireVersion);
    return std::nullopt;
  }
  ConnectData data;
  data.receive_credits = reader.u16();
  data.iomap_slots = reader.u16();
  reader.u16();
  data.ring_size = reader.u32();
  reader.u32();
  data.ring_address = reader.u64();
  data.ring_key = reader.u64();
  if (data.receive_credits < ChannelLimits::kMinQueue) {
    error = fmt::format("peer posted {} receives, expected at least {}", data.receive_credits,
                        ChannelLimits::kMinQueue);
    return std::nullopt;
  }
  if (data.ring_size < ChannelLimits::kMinBuffer || data.ring_size > ChannelLimits::kMaxBuffer) {
    error = fmt::format("peer's receive ring is {} bytes, expected {} to {}", data.ring_size,
                        ChannelLimits::kMinBuffer, ChannelLimits::kMaxBuffer);
    return std::nullopt;
  }
  if (data.iomap_slots > ChannelLimits::kMaxIomap) {
    error = fmt::format("peer announces {} iomap slots, expected at most {}", data.iomap_slots,
                        ChannelLimits::kMaxIomap);
    return std::nullopt;
  }
  return data;
}

namespace {
constexpr std::size_t kRingGrowBody = 24;
}  // namespace

std::size_t encode_control(const ControlMessage& message, std::byte* out) noexcept {
  store_le(out, static_cast<std::uint8_t>(message.type), 1);
  store_le(out + 1, 0, 1);
  store_le(out + 2, message.returned_receives, 2);
  store_le(out + 4, message.freed_bytes, 4);
  switch (message.type) {
    case ControlType::kIomapAdd:
      store_le(out + 8, message.iomap.slot, 4);
      store_le(out + 12, 0, 4);
      store_le(out + 16, message.iomap.offset, 8);
      store_le(out + 24, message.iomap.length, 8);
      store_le(out + 32, message.iomap.address, 8);
      store_le(out + 40, message.iomap.key, 8);
      return kControlHeaderSize + 40;
    case ControlType::kIomapRemove:
      store_le(out + 8, message.iomap.slot, 4);
      return kControlHeaderSize + 4;
    case ControlType::kRingGrow:
      store_le(out + 8, message.ring.size, 4);
      store_le(out + 12, 0, 4);
      store_le(out + 16, message.ring.address, 8);
      store_le(out + 24, message.ring.key, 8);
      return kControlHeaderSize + kRingGrowBody;
    case ControlType::kCredit:
    case ControlType::kShutdown:
      break;
  }
  return kControlHeaderSize;
}

std::optional<ControlMessage> decode_control(std::span<const std::byte> message,
                                             std::string& error) {
  if (message.size() < kControlHeaderSize) {
    error = fmt::format("control message of {} bytes, shorter than its {}-byte header",
                        message.size(), kControlHeaderSize);
    return std::nullopt;
  }
  ByteReader reader(message);
  ControlMessage out;
  const std::uint8_t type = reader.u8();
  reader.u8();
  out.returned_receives = reader.u16();
  out.freed_bytes = reader.u32();
  std::size_t body = 0;
  switch (type) {
    case static_cast<std::uint8_t>(ControlType::kCredit):
    case static_cast<std::uint8_t>(ControlType::kShutdown):
      break;
    case static_cast<std::uint8_t>(ControlType::kIomapAdd):
      body = 40;
      break;
    case static_cast<std::uint8_t>(ControlType::kIomapRemove):
      body = 4;
      break;
    case static_cast<std::uint8_t>(ControlType::kRingGrow):
      body = kRingGrowBody;
      break;
    default:
      error = fmt::format("control message of unknown type {}, expected 1 to {}", type,
                          static_cast<std::uint8_t>(ControlType::kRingGrow));
      return std::nullopt;
  }
  out.type = static_cast<ControlType>(type);
  if (message.size() != kControlHeaderSize + body) {
    error = fmt::format("{} control message of {} bytes, expected {}", to_string(out.type),
                        message.size(), kControlHeaderSize + body);
    return std::nullopt;
  }
  if (out.type == ControlType::kRingGrow) {
    out.ring.size = reader.u32();
    reader.u32();
    out.ring.address = reader.u64();
    out.ring.key = reader.u64();
    if (out.ring.size < ChannelLimits::kMinBuffer || out.ring.size > ChannelLimits::kMaxBuffer) {
      error = fmt::format("ring-grow message offers a ring of {} bytes, expected {} to {}",
                          out.ring.size, ChannelLimits::kMinBuffer, ChannelLimits::kMaxBuffer);
      return std::nullopt;
    }
    return out;
  }
  if (body != 0) {
    out.iomap.slot = reader.u32();
  }
  if (out.type == ControlType::kIomapAdd) {
    reader.u32();
    out.iomap.offset = reader.u64();
    out.iomap.length = reader.u64();
    out.iomap.address = reader.u64();
    out.iomap.key = reader.u64();
  }
  return out;
}

const char* to_string(ControlType type) noexcept {
  switch (type) {
    case ControlType::kCredit:
      return "credit";
    case ControlType::kShutdown:
      return "shutdown";
    case ControlType::kIomapAdd:
      return "iomap-add";
    case ControlType::kIomapRemove:
      return "iomap-remove";
    case ControlType::kRingGrow:
      return "ring-grow";
  }
  return "unknown";
}

}  // namespace railyard::rstream
