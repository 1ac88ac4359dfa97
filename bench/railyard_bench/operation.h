// What railyard-bench can measure, and what each operation moves: buffer
// sizes, the bus-bandwidth factor (nccl-tests' definitions, so figures
// compare with theirs) and whether it has an in-place form.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "railyard/collectives/selection.h"

namespace railyard::bench {

enum class Operation : std::uint8_t {
  kAllreduce,
  kBcast,
  kReduce,
  kAllgather,
  kReduceScatter,
  kAlltoall,
  kBarrier,
  kSendrecv,  // each rank to the next, from the previous
  kGather,
  kScatter,
  // The v-forms with every rank's count the same, as MPI benchmarks measure
  // them: their data are those of allgather, alltoall and reduce_scatter.
  kAllgatherv,
  kAlltoallv,
  kReduceScatterv,  // MPI_Reduce_scatter
};

// "allreduce", "bcast", "reduce", "allgather", "reduce_scatter",
// "alltoall", "barrier", "sendrecv", "gather", "scatter", "allgatherv",
// "alltoallv", "reduce_scatterv".
[[nodiscard]] std::string_view to_string(Operation operation) noexcept;
[[nodiscard]] std::optional<Operation> operation_named(std::string_view name) noexcept;
// Every name, comma separated, for messages.
[[nodiscard]] std::string_view operation_names() noexcept;

// The operation whose data a v-form moves (allgather for allgatherv ...);
// any other operation itself.
[[nodiscard]] Operation data_of(Operation operation) noexcept;

// The library collective an operation runs (nullopt: sendrecv).
[[nodiscard]] std::optional<collectives::Collective> collective_of(Operation operation) noexcept;

[[nodiscard]] bool reduces(Operation operation) noexcept;
[[nodiscard]] bool rooted(Operation operation) noexcept;
// Whether the operation has an in-place form distinct from its
// out-of-place one (bcast has one buffer only; barrier and sendrecv none;
// gather and scatter are measured out of place only).
[[nodiscard]] bool has_in_place(Operation operation) noexcept;

// The elements of one measured size on `ranks` ranks, as nccl-tests counts
// them: the whole vector (allgather: what every rank ends with;
// reduce_scatter and alltoall: what every rank puts in), a multiple of the
// ranks for the operations that cut it into blocks.
// The smallest size that measures anything: one element, or one per rank
// for the operations that cut the vector into blocks.
[[nodiscard]] std::size_t smallest_size(Operation operation, std::size_t element,
                                        int ranks) noexcept;
[[nodiscard]] std::size_t elements_for(Operation operation, std::size_t bytes, std::size_t element,
                                       int ranks) noexcept;
// The count the library call takes for `elements` (per rank, for the
// operations that cut the vector into blocks).
[[nodiscard]] std::size_t call_count(Operation operation, std::size_t elements, int ranks) noexcept;
// Elements of the send and the receive buffer one call needs, out of
// place; in place the receive buffer holds max(send, receive).
[[nodiscard]] std::size_t send_elements(Operation operation, std::size_t elements,
                                        int ranks) noexcept;
[[nodiscard]] std::size_t recv_elements(Operation operation, std::size_t elements,
                                        int ranks) noexcept;

// busbw = algbw * factor: what each rank's link carries, so that the
// figure compares with the hardware's bandwidth whatever the rank count
// (nccl-tests' PERFORMANCE.md).
[[nodiscard]] double bus_factor(Operation operation, int ranks) noexcept;

}  // namespace railyard::bench
