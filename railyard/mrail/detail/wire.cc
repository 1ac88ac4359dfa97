#include "railyard/mrail/detail/wire.h"

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/error.h"

namespace railyard::mrail {
namespace {

constexpr std::uint32_t kAddressMagic = 0x414D5952;  // "RYMA"
constexpr std::uint8_t kMaxType = static_cast<std::uint8_t>(MessageType::kRailReset);

}  // namespace

void encode_header(const Header& header, std::byte* out) noexcept {
  // Written in place: this runs once per fragment.
  store_le(out, static_cast<std::uint8_t>(header.type), 1);
  store_le(out + 1, header.flags, 1);
  store_le(out + 2, kHeaderMagic, 1);
  store_le(out + 3, kWireVersion, 1);
  store_le(out + 4, header.seq, 4);
  store_le(out + 8, header.source, 8);
  store_le(out + 16, header.tag, 8);
  store_le(out + 24, header.total, 8);
  store_le(out + 32, header.word, 8);
  store_le(out + 40, header.credit, 4);
  encode_path_fields(header, out);
}

void encode_path_fields(const Header& header, std::byte* out) noexcept {
  store_le(out + 44, header.path_seq, 4);
  store_le(out + 48, header.path_rail, 1);
  store_le(out + 49, header.path_epoch, 1);
  store_le(out + 50, header.ack_rail, 1);
  store_le(out + 51, header.ack_epoch, 1);
  store_le(out + 52, header.ack_seq, 4);
}

bool decode_header(std::span<const std::byte> message, Header& header, std::string& error) {
  if (message.size() < kHeaderSize) {
    error = fmt::format("a {}-byte message is shorter than the {}-byte header", message.size(),
                        kHeaderSize);
    return false;
  }
  // Read in place (the length is checked above): this runs once per fragment.
  const std::byte* in = message.data();
  const auto type = static_cast<std::uint8_t>(in[0]);
  header.flags = static_cast<std::uint8_t>(in[1]);
  const auto magic = static_cast<std::uint8_t>(in[2]);
  const auto version = static_cast<std::uint8_t>(in[3]);
  header.seq = static_cast<SeqNum>(load_le(in + 4, 4));
  header.source = load_le(in + 8, 8);
  header.tag = load_le(in + 16, 8);
  header.total = load_le(in + 24, 8);
  header.word = load_le(in + 32, 8);
  header.credit = static_cast<SeqNum>(load_le(in + 40, 4));
  header.path_seq = static_cast<std::uint32_t>(load_le(in + 44, 4));
  header.path_rail = static_cast<std::uint8_t>(in[48]);
  header.path_epoch = static_cast<std::uint8_t>(in[49]);
  header.ack_rail = static_cast<std::uint8_t>(in[50]);
  header.ack_epoch = static_cast<std::uint8_t>(in[51]);
  header.ack_seq = static_cast<std::uint32_t>(load_le(in + 52, 4));
  if (magic != kHeaderMagic || version != kWireVersion) {
    error = fmt::format("bad magic 0x{:02x} or version {} (expected 0x{:02x}, {})", magic, version,
                        kHeaderMagic, kWireVersion);
    return false;
  }
  if (type == 0 || type > kMaxType) {
    error = fmt::format("unknown message type {}, expected 1 to {}", type, kMaxType);
    return false;
  }
  header.type = static_cast<MessageType>(type);
  if ((header.flags & ~(kFlagTagged | kFlagRevokeKeys | kFlagWritesInFlight)) != 0) {
    error = fmt::format(
        "unknown flags 0x{:02x}, expected only 0x{:02x} (tagged), 0x{:02x} (revoke keys) and "
        "0x{:02x} (writes in flight)",
        header.flags, kFlagTagged, kFlagRevokeKeys, kFlagWritesInFlight);
    return false;
  }
  if ((header.flags & kFlagRevokeKeys) != 0 && header.type != MessageType::kFin) {
    error = fmt::format("flag 0x{:02x} (revoke keys) on a message of type {}, not a FIN",
                        kFlagRevokeKeys, type);
    return false;
  }
  if ((header.flags & kFlagWritesInFlight) != 0 && header.type != MessageType::kRailReset) {
    error = fmt::format(
        "flag 0x{:02x} (writes in flight) on a message of type {}, not a rail reset notice",
        kFlagWritesInFlight, type);
    return false;
  }
  if (header.path_rail >= kMaxRails || header.ack_rail >= kMaxRails) {
    error = fmt::format("path rail {} or acknowledged rail {} is not below {}", header.path_rail,
                        header.ack_rail, kMaxRails);
    return false;
  }
  if (header.ack_seq == 0 && (header.ack_rail != 0 || header.ack_epoch != 0)) {
    error = fmt::format(
        "acknowledged rail {} and epoch {} without a message number, expected both 0 when "
        "nothing is acknowledged",
        header.ack_rail, header.ack_epoch);
    return false;
  }
  if (header.type == MessageType::kRailReset) {
    const RailResetNotice notice = RailResetNotice::of(header.word);
    if (notice.rail >= kMaxRails || notice.number == 0 || (header.word & 0xFFFF0000U) != 0) {
      error = fmt::format(
          "rail reset notice word {:#x} names rail {} and notice {}, expected a rail below {}, a "
          "notice number from 1 and bits 16-31 zero",
          header.word, notice.rail, notice.number, kMaxRails);
      return false;
    }
  }
  if (header.type == MessageType::kEager) {
    const std::uint64_t payload = message.size() - kHeaderSize;
    if (header.word > header.total || payload > header.total - header.word) {
      error = fmt::format("fragment of {} bytes at offset {} overruns a {}-byte message", payload,
                          header.word, header.total);
      return false;
    }
  }
  return true;
}

std::vector<std::byte> encode_rts_body(const RtsBody& body) {
  std::vector<std::byte> out;
  ByteWriter writer(out);
  writer.u8(static_cast<std::uint8_t>(body.policy));
  writer.u8(body.preferred_rail);
  writer.u8(body.keys.size());
  writer.u8(0);
  for (const auto& key : body.keys) {
    writer.u8(key.rail);
    writer.u8(0);
    writer.u64(key.offset);
    writer.blob16(key.key);
  }
  return out;
}

bool decode_rts_body(std::span<const std::byte> data, RtsBody& body, std::string& error) {
  ByteReader reader(data);
  const auto policy = reader.u8();
  body.preferred_rail = reader.u8();
  const auto count = reader.u8();
  (void)reader.u8();
  if (policy > static_cast<std::uint8_t>(Policy::kStriping)) {
    error = fmt::format("rendezvous request names unknown policy {}, expected 0 to {}", policy,
                        static_cast<std::uint8_t>(Policy::kStriping));
    return false;
  }
  body.policy = static_cast<Policy>(policy);
  body.keys.clear();
  for (unsigned i = 0; i < count && !reader.failed(); ++i) {
    RtsBody::Key key;
    key.rail = reader.u8();
    (void)reader.u8();
    key.offset = reader.u64();
    key.key = reader.blob16();
    body.keys.push_back(std::move(key));
  }
  if (reader.failed() || reader.remaining() != 0 || count == 0) {
    error = fmt::format("rendezvous request body of {} bytes is malformed ({} keys declared)",
                        data.size(), count);
    return false;
  }
  return true;
}

std::vector<std::byte> encode_fin_body(const FinBody& body) {
  std::vector<std::byte> out;
  if (body.reads.empty()) {
    return out;
  }
  ByteWriter writer(out);
  writer.u8(body.reads.size());
  writer.u8(0);
  writer.u16(0);
  writer.u32(0);
  for (const auto& read : body.reads) {
    writer.u8(read.rail);
    writer.u8(0);
    writer.u16(0);
    writer.u32(0);
    writer.u64(read.bytes);
  }
  return out;
}

bool decode_fin_body(std::span<const std::byte> data, FinBody& body, std::string& error) {
  body.reads.clear();
  if (data.empty()) {
    return true;  // nothing was read
  }
  ByteReader reader(data);
  const auto count = reader.u8();
  (void)reader.u8();
  (void)reader.u16();
  (void)reader.u32();
  std::uint64_t seen = 0;  // a bit per rail: each may appear once
  for (unsigned i = 0; i < count && !reader.failed(); ++i) {
    FinBody::Read read;
    read.rail = reader.u8();
    (void)reader.u8();
    (void)reader.u16();
    (void)reader.u32();
    read.bytes = reader.u64();
    if (read.rail >= kMaxRails || (seen & (std::uint64_t{1} << read.rail)) != 0) {
      error = fmt::format("FIN body names rail {} twice or beyond {}", read.rail, kMaxRails);
      return false;
    }
    seen |= std::uint64_t{1} << read.rail;
    body.reads.push_back(read);
  }
  if (reader.failed() || reader.remaining() != 0 || count == 0) {
    error =
        fmt::format("FIN body of {} bytes is malformed ({} rails declared)", data.size(), count);
    return false;
  }
  return true;
}

std::vector<std::byte> encode_address(const EndpointAddress& address) {
  std::vector<std::byte> out;
  ByteWriter writer(out);
  writer.u32(kAddressMagic);
  writer.u8(kWireVersion);
  writer.u8(address.rails.size());
  writer.u16(0);
  writer.u64(address.id);
  writer.u32(address.max_fragment);
  writer.u32(address.window);
  for (const auto& rail : address.rails) {
    writer.string16(rail.provider);
    writer.string16(rail.network);
    writer.blob16(rail.address);
  }
  return out;
}

EndpointAddress decode_address(std::span<const std::byte> blob) {
  ByteReader reader(blob);
  const auto magic = reader.u32();
  const auto version = reader.u8();
  const auto count = reader.u8();
  (void)reader.u16();
  EndpointAddress address;
  address.id = reader.u64();
  address.max_fragment = reader.u32();
  address.window = reader.u32();
  if (reader.failed() || magic != kAddressMagic) {
    throw Error(fmt::format("a {}-byte blob is not a multi-rail endpoint address", blob.size()));
  }
  if (version != kWireVersion) {
    throw Error(fmt::format("multi-rail endpoint address has version {}, expected {}", version,
                            kWireVersion));
  }
  if (count == 0 || count > kMaxRails || address.max_fragment == 0 || address.window == 0) {
    throw Error(
        fmt::format("multi-rail endpoint address declares {} rails (1 to {} allowed), "
                    "fragment {} and window {}",
                    count, kMaxRails, address.max_fragment, address.window));
  }
  for (unsigned i = 0; i < count; ++i) {
    RailDescriptor rail;
    rail.provider = reader.string16();
    rail.network = reader.string16();
    rail.address = reader.blob16();
    if (reader.failed() || rail.provider.empty() || rail.address.empty()) {
      throw Error(fmt::format("multi-rail endpoint address is cut short or empty in rail {} of {}",
                              i + 1, count));
    }
    address.rails.push_back(std::move(rail));
  }
  if (reader.remaining() != 0) {
    throw Error(fmt::format("multi-rail endpoint address has {} unexpected trailing bytes",
                            reader.remaining()));
  }
  return address;
}

}  // namespace railyard::mrail
