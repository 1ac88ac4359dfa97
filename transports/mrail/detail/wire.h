// What multi-rail endpoints send each other. Layouts are in
// docs/wire-formats.md; every field is little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "railyard/transports/mrail/detail/sequence.h"
#include "railyard/transports/mrail/policy_table.h"

namespace railyard::mrail {

enum class MessageType : std::uint8_t {
  kEager = 1,   // a fragment of an eager message; word = its offset
  kRts = 2,     // rendezvous request-to-send; word = transfer id; body = RtsBody
  kFin = 3,     // rendezvous done, the sender may release its buffer; word = transfer id
  kCredit = 4,  // header only: a grant (Header::credit) with nothing else to carry it
};

inline constexpr std::uint8_t kHeaderMagic = 0x52;  // 'R'
inline constexpr std::uint8_t kWireVersion = 2;
inline constexpr std::size_t kHeaderSize = 48;
inline constexpr std::uint8_t kFlagTagged = 0x1;

// Every message starts with this header:
//   0 u8 type, 1 u8 flags, 2 u8 magic 'R', 3 u8 version, 4 u32 seq,
//   8 u64 source endpoint id, 16 u64 tag, 24 u64 total length, 32 u64 word,
//   40 u32 credit, 44 u32 reserved (0).
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

  [[nodiscard]] bool tagged() const noexcept { return (flags & kFlagTagged) != 0; }
};

// Writes exactly kHeaderSize bytes at `out`.
void encode_header(const Header& header, std::byte* out) noexcept;

// Decodes and checks a received message's header. On failure returns false
// and says why in `error`.
[[nodiscard]] bool decode_header(std::span<const std::byte> message, Header& header,
                                 std::string& error);

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
