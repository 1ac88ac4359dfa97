// How a multi-rail endpoint names the peers it has inserted.
#pragma once

#include <cstdint>

namespace railyard::mrail {

struct PeerId {
  std::uint32_t index = UINT32_MAX;
  friend bool operator==(const PeerId&, const PeerId&) = default;
};

// A receive that accepts a message from any peer (MPI_ANY_SOURCE).
inline constexpr PeerId kAnySource{UINT32_MAX - 1};
// The `ignore` mask that makes a tagged receive accept any tag (MPI_ANY_TAG).
inline constexpr std::uint64_t kAnyTag = ~std::uint64_t{0};

}  // namespace railyard::mrail
