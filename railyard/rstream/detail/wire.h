// What the two ends of a stream channel tell each other. Layouts are in
// docs/wire-formats.md; every field is little-endian.
//
// At connection time each side sends ConnectData (libfabric CM data): where
// its receive ring is and how many receives it posted. Afterwards stream
// bytes travel as RMA writes into the peer's ring carrying 32-bit immediate
// data, and everything else as small control messages into the peer's
// posted receive buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace railyard::rstream {

inline constexpr std::uint8_t kConnectMagic = 0x53;  // 'S'
inline constexpr std::uint8_t kWireVersion = 2;
inline constexpr std::size_t kConnectDataSize = 32;
// The registered ring is followed by this many bytes that the peer's
// keepalive probes write into, so a probe never touches stream data.
inline constexpr std::size_t kProbeSize = 8;

// Layout: 0 u8 magic 'S', 1 u8 version, 2 u16 receive credits, 4 u16 iomap
// slots, 6 u16 reserved, 8 u32 ring size, 12 u32 reserved, 16 u64 ring
// address (what the peer's writes target for ring offset 0), 24 u64 ring key.
struct ConnectData {
  std::uint16_t receive_credits = 0;  // receives posted for the peer's messages and writes
  std::uint16_t iomap_slots = 0;      // mappings this side may announce (its iomap_size)
  std::uint32_t ring_size = 0;
  std::uint64_t ring_address = 0;
  std::uint64_t ring_key = 0;
};

[[nodiscard]] std::vector<std::byte> encode_connect_data(const ConnectData& data);
// Returns nullopt and says why in `error` for anything that is not a
// ConnectData of this side's kWireVersion with sane sizes.
[[nodiscard]] std::optional<ConnectData> decode_connect_data(std::span<const std::byte> blob,
                                                             std::string& error);

// Immediate data of a ring write: bits 0-28 the number of stream bytes it
// carried; bit 29 set when the writer had been waiting for room in the
// ring (a hint that a larger ring would help); bit 30 the parity of the
// ring it targets (the peer's rings are numbered from 0 at connection, each
// kRingGrow starting the next). Bit 31 is kept clear so other write kinds
// can be told apart later.
inline constexpr std::uint32_t kMaxWriteLength = (std::uint32_t{1} << 29) - 1;
inline constexpr std::uint32_t kWriteStalledBit = std::uint32_t{1} << 29;
inline constexpr std::uint32_t kWriteParityBit = std::uint32_t{1} << 30;
inline constexpr std::uint32_t kWriteReservedBit = std::uint32_t{1} << 31;

enum class ControlType : std::uint8_t {
  kCredit = 1,       // nothing but the credits in the header
  kShutdown = 2,     // no more stream bytes follow (shutdown for writing)
  kIomapAdd = 3,     // a buffer the peer may write into; body IomapEntry
  kIomapRemove = 4,  // a mapping withdrawn; body slot
  kRingGrow = 5,     // a larger receive ring for the writes that follow; body RingGrant
};

// Every control message: 0 u8 type, 1 u8 reserved, 2 u16 receives the
// sender reposted since its last control message, 4 u32 ring bytes it freed
// since then, then the body.
inline constexpr std::size_t kControlHeaderSize = 8;
// Body of kIomapAdd: 0 u32 slot, 4 u32 reserved, 8 u64 stream offset the
// mapping starts at, 16 u64 length, 24 u64 target address, 32 u64 key.
// kIomapRemove's body is the u32 slot. Body of kRingGrow: 0 u32 ring size,
// 4 u32 reserved, 8 u64 ring address, 16 u64 key.
inline constexpr std::size_t kControlMaxSize = kControlHeaderSize + 40;

struct IomapEntry {
  std::uint32_t slot = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint64_t address = 0;
  std::uint64_t key = 0;
};

// A receive ring offered to the peer: where its writes go from now on.
// Like the ring of ConnectData, it is followed by the keepalive probe word.
struct RingGrant {
  std::uint32_t size = 0;
  std::uint64_t address = 0;
  std::uint64_t key = 0;
};

struct ControlMessage {
  ControlType type = ControlType::kCredit;
  std::uint16_t returned_receives = 0;
  std::uint32_t freed_bytes = 0;
  IomapEntry iomap;  // kIomapAdd (and the slot of kIomapRemove)
  RingGrant ring;    // kRingGrow
};

// A message of `type` with nothing set but its type.
[[nodiscard]] inline ControlMessage control_message(ControlType type) noexcept {
  ControlMessage message;
  message.type = type;
  return message;
}

// Writes the message at `out` (at least kControlMaxSize bytes); returns its length.
std::size_t encode_control(const ControlMessage& message, std::byte* out) noexcept;
// Returns nullopt and says why in `error` for a malformed message.
[[nodiscard]] std::optional<ControlMessage> decode_control(std::span<const std::byte> message,
                                                           std::string& error);

[[nodiscard]] const char* to_string(ControlType type) noexcept;

}  // namespace railyard::rstream
