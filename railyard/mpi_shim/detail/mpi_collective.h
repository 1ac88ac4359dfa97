// The MPI collectives the shim can carry, and their names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace railyard::mpi_shim {

// The MPI collectives the shim can carry; each also stands for its
// non-blocking form (allreduce: MPI_Allreduce and MPI_Iallreduce).
enum class MpiCollective : std::uint8_t {
  kAllreduce,
  kReduce,
  kBcast,
  kAllgather,
  kReduceScatterBlock,
  kAlltoall,
  kBarrier,
  kGather,
  kScatter,
  kAllgatherv,
  kAlltoallv,
  kReduceScatter,  // MPI_Reduce_scatter: a count per rank
};

inline constexpr std::array kAllMpiCollectives{MpiCollective::kAllreduce,
                                               MpiCollective::kReduce,
                                               MpiCollective::kBcast,
                                               MpiCollective::kAllgather,
                                               MpiCollective::kReduceScatterBlock,
                                               MpiCollective::kAlltoall,
                                               MpiCollective::kBarrier,
                                               MpiCollective::kGather,
                                               MpiCollective::kScatter,
                                               MpiCollective::kAllgatherv,
                                               MpiCollective::kAlltoallv,
                                               MpiCollective::kReduceScatter};

// "allreduce", "reduce", "bcast", "allgather", "reduce_scatter_block",
// "alltoall", "barrier", "gather", "scatter", "allgatherv", "alltoallv",
// "reduce_scatter": the names RAILYARD_MPI_COLLECTIVES takes.
[[nodiscard]] std::string_view to_string(MpiCollective collective) noexcept;

// Every collective taken: RAILYARD_MPI_COLLECTIVES=all, the default.
[[nodiscard]] constexpr std::array<bool, kAllMpiCollectives.size()> every_collective() noexcept {
  std::array<bool, kAllMpiCollectives.size()> all{};
  all.fill(true);
  return all;
}

}  // namespace railyard::mpi_shim
