// Per-peer message sequence numbers: 32 bits that wrap, compared with serial
// number arithmetic (RFC 1982), which is correct as long as the numbers in
// flight span less than 2^31, as the send window guarantees. Messages that
// outlive their turn (unexpected ones may wait forever) are not in flight:
// they are kept by a 64-bit ordinal (ReorderBuffer::ordinal_of_past), since
// a message left unmatched shares its number with one 2^32 messages later.
#pragma once

#include <cstdint>

namespace railyard::mrail {

using SeqNum = std::uint32_t;

// True when `a` comes before `b`, across wraparound.
[[nodiscard]] constexpr bool seq_before(SeqNum a, SeqNum b) noexcept {
  return static_cast<std::int32_t>(a - b) < 0;
}

// How far `later` is past `earlier` (mod 2^32).
[[nodiscard]] constexpr std::uint32_t seq_distance(SeqNum earlier, SeqNum later) noexcept {
  return later - earlier;
}

}  // namespace railyard::mrail
