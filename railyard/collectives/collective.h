// What one call of a collective is, as every algorithm of it takes it: which
// collective, its buffers and counts, and the options a caller may give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "railyard/collectives/datatype.h"

namespace railyard::collectives {

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
inline constexpr std::size_t kCollectiveCount = 14;

// "barrier", "bcast", "allreduce", "allgather", "reduce_scatter", "reduce",
// "alltoall", "gather", "scatter", "gatherv", "scatterv", "allgatherv",
// "alltoallv", "reduce_scatterv": string literals, so data() ends in a zero.
[[nodiscard]] std::string_view to_string(Collective collective) noexcept;
[[nodiscard]] std::optional<Collective> collective_named(std::string_view name) noexcept;
// Every name above, ", "-separated, for messages.
[[nodiscard]] std::string collective_names();

namespace detail {
inline constexpr std::byte kInPlaceMarker{};
}  // namespace detail

// As `send` (MPI_IN_PLACE): the input is already in the receive buffer
// (allreduce, reduce_scatter: all of it; allgather: this rank's block, at
// its place).
inline constexpr const void* kInPlace = &detail::kInPlaceMarker;

struct CollectiveOptions {
  // One of the collective's algorithms by name (railyard-info
  // --algorithms), instead of the table's choice; UsageError if it has none
  // so called.
  std::string algorithm;
};

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
  // detail/host_segment.h).
  bool blocking = false;
};

// One call of a collective, its arguments checked: what the algorithm
// takes, and the bytes the table chooses by (the whole vector a rank
// contributes or receives).
struct Call {
  Collective collective = Collective::kBarrier;
  CollectiveArgs args;
  std::size_t bytes = 0;
};

// How a team's ranks sit on hosts, for the hierarchical choices.
struct HostShape {
  int hosts = 1;
  int ranks_per_host = 0;  // when every host has the same number; else 0
};

}  // namespace railyard::collectives
