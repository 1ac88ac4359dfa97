// Every collective algorithm by name, and which one a collective of a given
// size on a given number of ranks runs: the built-in choice, or the one
// RAILYARD_ALGO names for that size range (docs/environment.md), e.g.
//   allreduce:0-8k:recursive_doubling;allreduce:8k-inf:ring
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/collectives/datatype.h"

namespace railyard::comm {

namespace detail {
class Channel;
class CollectiveTask;
}  // namespace detail

enum class Collective : std::uint8_t {
  kBarrier,
  kBcast,
  kAllreduce,
  kAllgather,
  kReduceScatter,
  kReduce,
  kAlltoall,
  kGather,
  kScatter,
  kGatherv,
  kScatterv,
  kAllgatherv,
  kAlltoallv,
  kReduceScatterv,
};

// "barrier", "bcast", "allreduce", "allgather", "reduce_scatter", "reduce",
// "alltoall", "gather", "scatter", "gatherv", "scatterv", "allgatherv",
// "alltoallv", "reduce_scatterv".
[[nodiscard]] std::string_view to_string(Collective collective) noexcept;
[[nodiscard]] std::optional<Collective> collective_named(std::string_view name) noexcept;

// What one call of a collective was given, as every algorithm of it takes
// it. Counts are elements of `type`.
struct CollectiveArgs {
  const void* send = nullptr;  // not read when in place
  void* recv = nullptr;
  // allreduce, bcast, reduce: the vector; allgather, reduce_scatter,
  // alltoall: per rank (block)
  std::size_t count = 0;
  DataType type = DataType::kUint8;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  // The v-forms: elements per rank and each rank's first element, of the
  // receive buffer (gatherv at the root, allgatherv, alltoallv) or of the
  // send buffer (scatterv at the root); alltoallv's send side in
  // send_counts and send_displs. The caller's arrays, valid until the
  // collective ends.
  std::span<const std::size_t> counts{};
  std::span<const std::size_t> displs{};
  std::span<const std::size_t> send_counts{};
  std::span<const std::size_t> send_displs{};
  // allreduce, reduce (at the root), reduce_scatter, alltoall(v): the input
  // is in recv; allgather(v), gather(v) at the root: this rank's block is in
  // place in recv; scatter(v) at the root: its block stays in send.
  bool in_place = false;
  // The caller waits for it before it starts another (allreduce, not
  // iallreduce): an algorithm over a host segment runs only then (see
  // railyard/collectives/detail/host_segment.h).
  bool blocking = false;
};

// How a communicator's ranks sit on hosts, for the hierarchical choices.
struct HostShape {
  int hosts = 1;
  int ranks_per_host = 0;  // when every host has the same number; else 0
};

struct Algorithm {
  Collective collective;
  std::string_view name;
  std::string_view description;  // one line, for railyard-info --algorithms
  detail::CollectiveTask (*run)(detail::Channel channel, CollectiveArgs args);
};

// Every algorithm, grouped by collective.
[[nodiscard]] std::span<const Algorithm> all_algorithms() noexcept;

class AlgorithmTable {
 public:
  // The built-in choice alone.
  AlgorithmTable() = default;
  // With the overrides of `spec` (RAILYARD_ALGO's grammar); throws
  // ConfigError naming `input` and the entry at fault.
  AlgorithmTable(std::string_view input, std::string_view spec);
  // From RAILYARD_ALGO, when set.
  [[nodiscard]] static AlgorithmTable from_environment();

  // The algorithm for `bytes` (the whole vector a rank contributes or
  // receives) on `ranks` ranks spread over hosts as `hosts` says.
  [[nodiscard]] const Algorithm& choose(Collective collective, std::size_t bytes, int ranks,
                                        HostShape hosts = {}) const noexcept;
  // The algorithm of `collective` called `name`; UsageError naming it and
  // the collective's algorithms otherwise.
  [[nodiscard]] static const Algorithm& named(Collective collective, std::string_view name);

  // The overrides, as given ("" when none).
  [[nodiscard]] const std::string& spec() const noexcept { return spec_; }

 private:
  struct Override {
    Collective collective;
    std::uint64_t from;  // bytes, inclusive
    std::uint64_t to;    // bytes, exclusive; UINT64_MAX: no end
    const Algorithm* algorithm;
  };

  std::string spec_;
  std::vector<Override> overrides_;
};

}  // namespace railyard::comm
