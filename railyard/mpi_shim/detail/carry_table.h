// Where the shim carries each collective: the sizes, by the communicator's
// layout, at which railyard's collective was measured faster than Open
// MPI's own (docs/benchmarks.md, "The MPI shim's table"); every other call
// goes to MPI. RAILYARD_MPI_MIN_BYTES overrides it, for every collective or
// for some.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "railyard/mpi_shim/detail/mpi_collective.h"

namespace railyard::mpi_shim {

// How a communicator's ranks sit on hosts, as the table tells them apart.
enum class Layout : std::uint8_t {
  kOneHost,              // every rank on one host
  kOneRankPerHost,       // several hosts, one rank on each
  kSeveralRanksPerHost,  // several hosts, more than one rank on some
};
inline constexpr std::array kAllLayouts{Layout::kOneHost, Layout::kOneRankPerHost,
                                        Layout::kSeveralRanksPerHost};

// `ranks_per_host` 0: hosts hold different numbers of ranks.
[[nodiscard]] Layout layout_of(int hosts, int ranks_per_host) noexcept;
// "one host", "one rank per host", "several ranks per host".
[[nodiscard]] std::string_view to_string(Layout layout) noexcept;

inline constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();

// One range of the built-in table: on `layout`, `collective` is carried
// from `from` bytes (inclusive) to `to` (exclusive). A collective and
// layout without a row goes to MPI at every size. The size is what
// ShimOptions::carry describes (a reduction's vector, a rank's block).
struct CarryRow {
  MpiCollective collective;
  Layout layout;
  std::uint64_t from;
  std::uint64_t to = kNoEnd;
};
[[nodiscard]] std::span<const CarryRow> builtin_carry_rows() noexcept;

class CarryTable {
 public:
  // The built-in table alone.
  CarryTable() = default;
  // With RAILYARD_MPI_MIN_BYTES's overrides: a size for every collective
  // ("64k"), or a comma list of NAME=SIZE, with at most one bare SIZE for
  // the collectives not named ("bcast=1m,allgather=256k" or
  // "0,alltoall=1m"). An overridden collective is carried from its size up
  // on every layout. Throws ConfigError naming `variable`.
  static CarryTable parse(std::string_view variable, std::string_view text);

  // Whether a call of `bytes` is carried on `layout`.
  [[nodiscard]] bool carries(MpiCollective collective, std::uint64_t bytes,
                             Layout layout) const noexcept;
  // Whether `collective` is carried at some size on `layout`.
  [[nodiscard]] bool carries_some(MpiCollective collective, Layout layout) const noexcept;
  // The smallest size carried on any layout (kNoEnd: none): calls below it
  // go to MPI before the communicator is looked at.
  [[nodiscard]] std::uint64_t smallest(MpiCollective collective) const noexcept;
  // "from 64 KiB", "from 1 KiB below 4 MiB", "at no size" (on `layout`), with
  // " (RAILYARD_MPI_MIN_BYTES)" when overridden.
  [[nodiscard]] std::string describe(MpiCollective collective, Layout layout) const;
  // The overrides as parsed, for comparing ranks' settings:
  // "allreduce=65536,bcast=1048576", or "(unset)".
  [[nodiscard]] std::string overrides_text() const;
  [[nodiscard]] bool overridden(MpiCollective collective) const noexcept {
    return overrides_[static_cast<std::size_t>(collective)].has_value();
  }

 private:
  std::array<std::optional<std::uint64_t>, kAllMpiCollectives.size()> overrides_{};
};

}  // namespace railyard::mpi_shim
