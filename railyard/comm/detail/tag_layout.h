// How a Communicator's messages use the multi-rail layer's 64-bit tag, so
// that traffic of different communicators, and the library's own traffic on
// one, can never match (docs/wire-formats.md, "Communicator tags"):
//
//   bits 63..32  context id of the communicator (0 is the world)
//   bit  31      1 for the library's own messages (split, collectives)
//   bits 30..0   the user's tag, 0 to kMaxTag; with bit 31, the library's
//                (bit 30: a collective and its number, see collective_tag)
#pragma once

#include <cstdint>

namespace railyard::comm::detail {

inline constexpr std::uint64_t kUserTagMask = (std::uint64_t{1} << 31) - 1;
inline constexpr std::uint64_t kInternalBit = std::uint64_t{1} << 31;

[[nodiscard]] constexpr std::uint64_t wire_tag(std::uint32_t context, bool internal,
                                               std::uint64_t tag) noexcept {
  return (std::uint64_t{context} << 32) | (internal ? kInternalBit : 0) | (tag & kUserTagMask);
}

[[nodiscard]] constexpr int user_tag(std::uint64_t wire) noexcept {
  return static_cast<int>(wire & kUserTagMask);
}

// Library tags on a communicator (with kInternalBit).
inline constexpr std::uint64_t kSplitTag = 1;
// A collective's messages: bit 30, a stream of the collective in bits
// 29..24, and the number of the collective on its communicator in bits
// 23..0, so that the messages of collectives in flight together
// (non-blocking ones) never match each other's receives, nor those of the
// streams one collective runs side by side (a pipeline's segments; 0 for
// an algorithm with one stream).
inline constexpr std::uint64_t kCollectiveTagBit = std::uint64_t{1} << 30;
inline constexpr unsigned kCollectiveStreamShift = 24;
inline constexpr std::uint32_t kCollectiveStreams = 64;
inline constexpr std::uint64_t kCollectiveNumberMask =
    (std::uint64_t{1} << kCollectiveStreamShift) - 1;

[[nodiscard]] constexpr std::uint64_t collective_tag(std::uint32_t sequence) noexcept {
  return kCollectiveTagBit | (sequence & kCollectiveNumberMask);
}

// A collective's tag with its stream set to `stream` (taken modulo
// kCollectiveStreams), whatever stream it had.
[[nodiscard]] constexpr std::uint64_t stream_tag(std::uint64_t collective_wire,
                                                 std::uint32_t stream) noexcept {
  constexpr std::uint64_t kStreamMask = std::uint64_t{kCollectiveStreams - 1}
                                        << kCollectiveStreamShift;
  return (collective_wire & ~kStreamMask) |
         (std::uint64_t{stream % kCollectiveStreams} << kCollectiveStreamShift);
}

// A stream changes neither the context, the library bit, the collective
// bit nor the collective's number, and a second stream_tag replaces the
// first.
static_assert((stream_tag(wire_tag(7, true, collective_tag(0xFFFFFF)), 63) >> 32) == 7);
static_assert((stream_tag(collective_tag(0xFFFFFF), 63) & kCollectiveNumberMask) == 0xFFFFFF);
static_assert((stream_tag(wire_tag(0, true, collective_tag(1)), 63) & kInternalBit) != 0);
static_assert((stream_tag(collective_tag(1), 63) & kCollectiveTagBit) != 0);
static_assert(stream_tag(stream_tag(collective_tag(1), 5), 2) == stream_tag(collective_tag(1), 2));
static_assert(stream_tag(collective_tag(1), 0) == collective_tag(1));

}  // namespace railyard::comm::detail
