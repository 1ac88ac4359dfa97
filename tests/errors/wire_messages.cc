// Malformed messages from the network, refused by the decoders every
// received byte goes through: the multi-rail header, a rendezvous request's
// body, an endpoint address, a remote memory key, rstream's connection data,
// control messages and frames, and a rank card. (A malformed multi-rail message is
// then dropped and counted, and a refused address or card fails the call
// that was given it; tests/mrail and tests/comm check those paths.)
#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "bad_input.h"
#include "railyard/comm/detail/rank_card.h"
#include "railyard/common/detail/byte_codec.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/rail/detail/remote_key.h"
#include "railyard/rstream/detail/wire.h"
#include "railyard/rstream/frame_assembler.h"

namespace railyard::testing {
namespace {

using Bytes = std::vector<std::byte>;

BadInput wire(std::string kind, std::string input, std::string value, std::string expected,
              std::string input_in_message, std::string value_in_message,
              std::function<std::string()> refuse) {
  return BadInput{.kind = std::move(kind),
                  .input = std::move(input),
                  .value = std::move(value),
                  .expected = std::move(expected),
                  .refuse = std::move(refuse),
                  .input_in_message = std::move(input_in_message),
                  .value_in_message = std::move(value_in_message),
                  .secret = {}};
}

// A header that decodes, with `edit` applied to its bytes.
std::string header_refusal(
    mrail::Header header, std::size_t payload,
    const std::function<void(Bytes&)>& edit = [](Bytes&) {}) {
  Bytes message(mrail::kHeaderSize + payload);
  mrail::encode_header(header, message.data());
  edit(message);
  mrail::Header decoded;
  std::string error;
  return mrail::decode_header(message, decoded, error) ? std::string() : error;
}

std::string rts_refusal(const Bytes& body) {
  mrail::RtsBody decoded;
  std::string error;
  return mrail::decode_rts_body(body, decoded, error) ? std::string() : error;
}

Bytes valid_address() {
  mrail::EndpointAddress address;
  address.id = 7;
  address.max_fragment = 32768;
  address.window = 64;
  address.rails.push_back(mrail::RailDescriptor{"net", "127.0.0.0/8", Bytes(16, std::byte{1})});
  return mrail::encode_address(address);
}

Bytes valid_key() {
  rail::RemoteKey key;
  key.base_address = 4096;
  key.length = 100;
  key.key = Bytes(8, std::byte{3});
  return rail::encode_remote_key(key);
}

Bytes valid_connect_data() {
  rstream::ConnectData data;
  data.receive_credits = 384;
  data.ring_size = 32768;
  return rstream::encode_connect_data(data);
}

std::string connect_refusal(const Bytes& blob) {
  std::string error;
  return rstream::decode_connect_data(blob, error) ? std::string() : error;
}

std::string control_refusal(const Bytes& message) {
  std::string error;
  return rstream::decode_control(message, error) ? std::string() : error;
}

// A frame stream fed whole to an assembler taking payloads of up to 64
// bytes: its refusal, or why it was cut short; "" when it ends between
// frames.
std::string frame_refusal(const Bytes& stream) {
  rstream::FrameAssembler assembler(64);
  std::size_t at = 0;
  while (at < stream.size()) {
    const auto space = assembler.space();
    const std::size_t piece = std::min(space.size(), stream.size() - at);
    std::copy_n(stream.begin() + static_cast<std::ptrdiff_t>(at), piece, space.begin());
    at += piece;
    const auto state = assembler.received(piece);
    if (state == rstream::FrameAssembler::State::kMalformed) {
      return assembler.error();
    }
    if (state == rstream::FrameAssembler::State::kFrame) {
      (void)assembler.take();
    }
  }
  return assembler.between_frames() ? std::string() : assembler.cut_short();
}

// A frame header announcing `length` bytes of type `type`, with the reserved
// field `reserved`.
Bytes frame_header(std::uint32_t length, std::uint16_t type, std::uint16_t reserved) {
  Bytes out;
  ByteWriter writer(out);
  writer.u32(length);
  writer.u16(type);
  writer.u16(reserved);
  return out;
}

// A rank card: version, host, CPU count and CPUs, machine flag.
Bytes card(std::uint8_t version, const std::string& host, std::uint32_t cpus,
           std::uint8_t machine) {
  Bytes out;
  ByteWriter writer(out);
  writer.u8(version);
  writer.string16(host);
  writer.u32(cpus);
  writer.u8(machine);
  return out;
}

}  // namespace

std::vector<BadInput> wire_messages() {
  using mrail::Header;
  using mrail::MessageType;
  constexpr const char* kHeader = "Wire: multi-rail messages";
  constexpr const char* kStream = "Wire: rstream channels";
  constexpr const char* kCard = "Wire: rank cards";
  return {
      wire(kHeader, "multi-rail message", "10 bytes", "shorter than the 56-byte header", "message",
           "10-byte",
           [] {
             const Bytes message(10);
             mrail::Header header;
             std::string error;
             return mrail::decode_header(message, header, error) ? std::string() : error;
           }),
      wire(kHeader, "header magic", "0x00", "expected 0x52", "magic", "0x00",
           [] { return header_refusal(Header{}, 0, [](Bytes& m) { m[2] = std::byte{0}; }); }),
      wire(kHeader, "header version", "9", "expected 0x52, 4", "version", "9",
           [] { return header_refusal(Header{}, 0, [](Bytes& m) { m[3] = std::byte{9}; }); }),
      wire(kHeader, "message type", "9", "expected 1 to 8", "message type", "9",
           [] { return header_refusal(Header{}, 0, [](Bytes& m) { m[0] = std::byte{9}; }); }),
      wire(kHeader, "message type", "0", "expected 1 to 8", "message type", "0",
           [] { return header_refusal(Header{}, 0, [](Bytes& m) { m[0] = std::byte{0}; }); }),
      wire(kHeader, "header flags", "0x80",
           "expected only 0x01 (tagged), 0x02 (revoke keys) and 0x04", "flags", "0x80",
           [] { return header_refusal(Header{.flags = 0x80}, 0); }),
      wire(kHeader, "revoke-keys flag", "on an eager fragment", "not a FIN", "revoke keys",
           "type 1", [] { return header_refusal(Header{.flags = mrail::kFlagRevokeKeys}, 0); }),
      wire(kHeader, "writes-in-flight flag", "on an eager fragment", "not a rail reset notice",
           "writes in flight", "type 1",
           [] { return header_refusal(Header{.flags = mrail::kFlagWritesInFlight}, 0); }),
      wire(kHeader, "rail reset notice", "notice number 0", "a notice number from 1",
           "rail reset notice", "notice 0",
           [] {
             return header_refusal(
                 Header{.type = MessageType::kRailReset,
                        .word = mrail::RailResetNotice{.rail = 2, .epoch = 0, .number = 0}.word()},
                 0);
           }),
      wire(kHeader, "rail reset notice", "rail 64", "a rail below 64", "rail reset notice",
           "rail 64",
           [] {
             return header_refusal(
                 Header{.type = MessageType::kRailReset,
                        .word = mrail::RailResetNotice{.rail = 64, .epoch = 0, .number = 1}.word()},
                 0);
           }),
      wire(kHeader, "path rail", "64", "is not below 64", "path rail", "64",
           [] { return header_refusal(Header{.path_rail = 64}, 0); }),
      wire(kHeader, "acknowledged rail", "3 with no message number", "expected both 0",
           "acknowledged rail", "3", [] { return header_refusal(Header{.ack_rail = 3}, 0); }),
      wire(kHeader, "eager fragment", "100 bytes at offset 10 of a 50-byte message",
           "overruns a 50-byte message", "fragment", "100 bytes at offset 10",
           [] { return header_refusal(Header{.total = 50, .word = 10}, 100); }),
      wire(kHeader, "rendezvous request policy", "7", "expected 0 to 2", "policy", "7",
           [] {
             return rts_refusal(Bytes{std::byte{7}, std::byte{0}, std::byte{1}, std::byte{0}});
           }),
      wire(kHeader, "rendezvous request body", "no keys", "malformed (0 keys declared)",
           "rendezvous request body", "4 bytes",
           [] {
             return rts_refusal(Bytes{std::byte{2}, std::byte{0}, std::byte{0}, std::byte{0}});
           }),
      wire(kHeader, "endpoint address", "10 bytes", "is not a multi-rail endpoint address", "blob",
           "10-byte", [] { return refusal_of([] { (void)mrail::decode_address(Bytes(10)); }); }),
      wire(kHeader, "endpoint address version", "9", "expected 4", "address has version", "9",
           [] {
             Bytes blob = valid_address();
             blob[4] = std::byte{9};
             return refusal_of([&] { (void)mrail::decode_address(blob); });
           }),
      wire(kHeader, "endpoint address rails", "0", "1 to 64 allowed", "declares", "0 rails",
           [] {
             Bytes blob = valid_address();
             blob[5] = std::byte{0};
             return refusal_of([&] { (void)mrail::decode_address(blob); });
           }),
      wire(kHeader, "endpoint address", "one byte short", "cut short", "address", "rail 1 of 1",
           [] {
             Bytes blob = valid_address();
             blob.pop_back();
             return refusal_of([&] { (void)mrail::decode_address(blob); });
           }),
      wire(kHeader, "endpoint address", "one byte more", "unexpected trailing bytes", "address",
           "1",
           [] {
             Bytes blob = valid_address();
             blob.push_back(std::byte{0});
             return refusal_of([&] { (void)mrail::decode_address(blob); });
           }),
      wire(kHeader, "remote memory key", "8 bytes", "shorter than its 24-byte header",
           "remote memory key", "8 bytes",
           [] { return refusal_of([] { (void)rail::decode_remote_key(Bytes(8)); }); }),
      wire(kHeader, "remote memory key version", "9", "expected", "remote memory key", "9",
           [] {
             Bytes blob = valid_key();
             blob[0] = std::byte{9};
             return refusal_of([&] { (void)rail::decode_remote_key(blob); });
           }),
      wire(kHeader, "remote memory key flags", "0x80", "unknown flags", "remote memory key", "0x80",
           [] {
             Bytes blob = valid_key();
             blob[1] = std::byte{0x80};
             return refusal_of([&] { (void)rail::decode_remote_key(blob); });
           }),
      wire(kHeader, "remote memory key length", "8 declared, 7 carried", "keys are 1 to 1024 bytes",
           "remote memory key", "7 bytes",
           [] {
             Bytes blob = valid_key();
             blob.pop_back();
             return refusal_of([&] { (void)rail::decode_remote_key(blob); });
           }),
      wire(kStream, "connection data", "16 bytes", "expected 32", "connection data", "16 bytes",
           [] { return connect_refusal(Bytes(16)); }),
      wire(kStream, "connection data magic", "0x00", "expected 0x53", "connection data", "0x00",
           [] {
             Bytes blob = valid_connect_data();
             blob[0] = std::byte{0};
             return connect_refusal(blob);
           }),
      wire(kStream, "stream protocol version", "9", "this side version", "protocol version", "9",
           [] {
             Bytes blob = valid_connect_data();
             blob[1] = std::byte{9};
             return connect_refusal(blob);
           }),
      wire(kStream, "posted receives", "2", "expected at least 16", "receives", "2",
           [] {
             Bytes blob = valid_connect_data();
             blob[2] = std::byte{2};
             blob[3] = std::byte{0};
             return connect_refusal(blob);
           }),
      wire(kStream, "control message", "4 bytes", "shorter than its 8-byte header",
           "control message", "4 bytes", [] { return control_refusal(Bytes(4)); }),
      wire(kStream, "control message type", "9", "expected 1 to 5", "control message", "9",
           [] {
             Bytes message(8);
             message[0] = std::byte{9};
             return control_refusal(message);
           }),
      wire(kStream, "credit control message", "12 bytes", "expected 8", "credit", "12 bytes",
           [] {
             Bytes message(12);
             message[0] = std::byte{1};
             return control_refusal(message);
           }),
      wire(kStream, "frame header reserved field", "0x7", "expected 0", "reserved field", "0x7",
           [] { return frame_refusal(frame_header(0, 1, 7)); }),
      wire(kStream, "frame length", "65 bytes", "more than the maximum of 64", "announces",
           "65 bytes", [] { return frame_refusal(frame_header(65, 2, 0)); }),
      wire(kStream, "frame stream", "cut after 3 of 10 payload bytes",
           "of the 10 payload bytes of a frame", "stream ended", "3 of the 10",
           [] {
             Bytes stream = frame_header(10, 3, 0);
             stream.resize(stream.size() + 3);
             return frame_refusal(stream);
           }),
      wire(kCard, "rank card version", "9", "this rank speaks", "rank card version", "9",
           [] {
             return refusal_of([] { (void)comm::detail::decode_rank_card(card(9, "h", 0, 0), 3); });
           }),
      wire(kCard, "rank card CPU count", "1000000", "malformed", "rank card lists", "1000000",
           [] {
             return refusal_of([] {
               (void)comm::detail::decode_rank_card(
                   card(comm::detail::RankCard::kVersion, "h", 1000000, 0), 3);
             });
           }),
      wire(kCard, "rank card machine flag", "2", "expected 0 or 1", "machine flag", "2",
           [] {
             return refusal_of([] {
               (void)comm::detail::decode_rank_card(
                   card(comm::detail::RankCard::kVersion, "h", 0, 2), 3);
             });
           }),
  };
}

}  // namespace railyard::testing
