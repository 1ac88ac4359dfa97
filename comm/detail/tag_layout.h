// How a Communicator's messages use the multi-rail layer's 64-bit tag, so
// that traffic of different communicators, and the library's own traffic on
// one, can never match (docs/wire-formats.md, "Communicator tags"):
//
//   bits 63..32  context id of the communicator (0 is the world)
//   bit  31      1 for the library's own messages (split, collectives)
//   bits 30..0   the user's tag, 0 to kMaxTag
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

}  // namespace railyard::comm::detail
