// What multi-rail endpoints send each other. Layouts are in
// docs/wire-formats.md; every field is little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "railyard/mrail/detail/sequence.h"
#include "railyard/mrail/policy_table.h"

namespace railyard::mrail {

enum class MessageType : std::uint8_t {
  kEager = 1,   // a fragment of an eager message; word = its offset
  kRts = 2,     // rendezvous request-to-send; word = transfer id; body = RtsBody
  kFin = 3,     // rendezvous done, the sender may release its buffer; word = transfer id;
                // body = FinBody (what was read over each of the sender's rails)
  kCredit = 4,  // header only: a grant (Header::credit) with nothing else to carry it
  // Rail failover (docs/architecture.md), header only and never numbered:
  kAck = 5,         // the path (path_rail, path_epoch) has delivered every message up to path_seq
  kProbe = 6,       // is the path (path_rail, path_epoch) alive? word = nonce
  kProbeReply = 7,  // it is: the probe's path and nonce, sent back
  // Header only, numbered: one of the sender's rails was reset
  // (Rail::reset), so its connections broke and what they carried may be
  // lost; word = RailResetNotice.
  kRailReset = 8,
};

inline constexpr std::uint8_t kHeaderMagic = 0x52;  // 'R'
inline constexpr std::uint8_t kWireVersion = 4;
inline constexpr std::size_t kHeaderSize = 56;
inline constexpr std::uint8_t kFlagTagged = 0x1;
// On a FIN: a read of the transfer was ended by a rail reset, and its request
// may still reach the sender; the sender revokes the buffer's registration.
inline constexpr std::uint8_t kFlagRevokeKeys = 0x2;
// On a rail reset notice: RMA writes to the receiver were in flight over the
// reset rail. Their packets may still be held on the way (a NIC's queue
// during a link flap) and would land through the receiver's end of the
// broken connection, after the writes were made again and completed; the
// receiver resets its own end of the path (docs/architecture.md).
inline constexpr std::uint8_t kFlagWritesInFlight = 0x4;

// Every message starts with this header:
//   0 u8 type, 1 u8 flags, 2 u8 magic 'R', 3 u8 version, 4 u32 seq,
//   8 u64 source endpoint id, 16 u64 tag, 24 u64 total length, 32 u64 word,
//   40 u32 credit, 44 u32 path_seq, 48 u8 path_rail, 49 u8 path_epoch,
//   50 u8 ack_rail, 51 u8 ack_epoch, 52 u32 ack_seq.
struct Header {
  MessageType type = MessageType::kEager;
  std::uint8_t flags = 0;
  SeqNum seq = 0;
  std::uint64_t source = 0;
  std::uint64_t tag = 0;
  std::uint64_t total = 0;
  std::uint64_t word = 0;
  // The sender's grant to the receiver, carried by every message: the next
  // sequence number the sender expects from the receiver, so the receiver
  // may send up to a window past it. Traffic both ways thus returns credits
  // without credit messages of their own.
  SeqNum credit = 0;
  // Where the message travels, for rail failover: its number among the
  // messages its sender has put on the path since the path last came up
  // (0: unnumbered, not kept for resending), the sender's rail of the path,
  // and how many times the path has come back up (mod 256). kAck, kProbe
  // and kProbeReply use them to name a path instead.
  std::uint32_t path_seq = 0;
  std::uint8_t path_rail = 0;
  std::uint8_t path_epoch = 0;
  // An acknowledgement riding along, as kAck's path fields say one (0: none):
  // traffic both ways then needs no kAck messages.
  std::uint32_t ack_seq = 0;
  std::uint8_t ack_rail = 0;
  std::uint8_t ack_epoch = 0;

  [[nodiscard]] bool tagged() const noexcept { return (flags & kFlagTagged) != 0; }
};

// Writes exactly kHeaderSize bytes at `out`.
void encode_header(const Header& header, std::byte* out) noexcept;

// Decodes and checks a received message's header. On failure returns false
// and says why in `error`.
[[nodiscard]] bool decode_header(std::span<const std::byte> message, Header& header,
                                 std::string& error);

// Rewrites the path and acknowledgement fields of an encoded header in
// place.
void encode_path_fields(const Header& header, std::byte* out) noexcept;

// Whether messages of this type are numbered on their path and resent when
// it fails: all but acknowledgements, probes and their answers, which are
// about the path they travel (resent over another they would vouch for it
// falsely, or acknowledge a later life of it).
[[nodiscard]] constexpr bool numbered(MessageType type) noexcept {
  return type != MessageType::kAck && type != MessageType::kProbe &&
         type != MessageType::kProbeReply;
}

// What a rail reset notice's word says: the sender's rail that was reset,
// the epoch of the sender's path to the receiver on it, and the notice's
// number among those the sender has sent (from 1; a notice resent over
// another path keeps it, so the receiver acts on each once). Bits 0-7 the
// rail, 8-15 the epoch, 16-31 zero, 32-63 the number.
struct RailResetNotice {
  std::uint8_t rail = 0;
  std::uint8_t epoch = 0;
  std::uint32_t number = 0;

  [[nodiscard]] constexpr std::uint64_t word() const noexcept {
    return rail | (std::uint64_t{epoch} << 8U) | (std::uint64_t{number} << 32U);
  }
  [[nodiscard]] static constexpr RailResetNotice of(std::uint64_t word) noexcept {
    return {static_cast<std::uint8_t>(word & 0xFFU),
            static_cast<std::uint8_t>((word >> 8U) & 0xFFU),
            static_cast<std::uint32_t>(word >> 32U)};
  }
};

// After an RTS header: how the sender wants its buffer pulled.
struct RtsBody {
  Policy policy = Policy::kStriping;
  std::uint8_t preferred_rail = 0;  // the sender's rail for fixed and round-robin
  struct Key {
    std::uint8_t rail = 0;       // index of the sender's rail
    std::uint64_t offset = 0;    // where the message starts in the registered region
    std::vector<std::byte> key;  // LocalRegion::remote_key() on that rail
  };
  std::vector<Key> keys;
};

[[nodiscard]] std::vector<std::byte> encode_rts_body(const RtsBody& body);
[[nodiscard]] bool decode_rts_body(std::span<const std::byte> data, RtsBody& body,
                                   std::string& error);

// After a FIN header: how many bytes the receiver read over each of the
// sender's rails, so that the sender counts them as sent on the rail they
// left by (RailTraffic::bytes_sent). Empty when nothing was read.
struct FinBody {
  struct Read {
    std::uint8_t rail = 0;    // index of the sender's rail
    std::uint64_t bytes = 0;  // read over it
  };
  std::vector<Read> reads;
};

[[nodiscard]] std::vector<std::byte> encode_fin_body(const FinBody& body);
[[nodiscard]] bool decode_fin_body(std::span<const std::byte> data, FinBody& body,
                                   std::string& error);

// One rail as a peer sees it.
struct RailDescriptor {
  std::string provider;            // "tcp;ofi_rxm"
  std::string network;             // "198.18.1.0/24", or the fabric name without a bind address
  std::vector<std::byte> address;  // fi_getname of the rail's endpoint
};

// What a peer needs to reach an endpoint: its identity, receive limits and
// rails, in the endpoint's rail order.
struct EndpointAddress {
  std::uint64_t id = 0;
  std::uint32_t max_fragment = 0;  // largest eager fragment payload it receives
  std::uint32_t window = 0;        // messages it can hold ahead of their turn
  std::vector<RailDescriptor> rails;
};

inline constexpr std::size_t kMaxRails = 64;

[[nodiscard]] std::vector<std::byte> encode_address(const EndpointAddress& address);
// Throws Error naming what is malformed.
[[nodiscard]] EndpointAddress decode_address(std::span<const std::byte> blob);

}  // namespace railyard::mrail
