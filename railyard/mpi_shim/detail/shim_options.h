// What the MPI shim takes over from MPI, read from the environment at
// MPI_Init (docs/mpi.md, docs/environment.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
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

struct ShimOptions {
  // Which collectives go to railyard; the others always go to MPI.
  // RAILYARD_MPI_COLLECTIVES: a comma list of the names above, "all" (the
  // default) or "none".
  std::array<bool, kAllMpiCollectives.size()> enabled = every_collective();

  // The smallest message the shim takes over, in bytes (the vector of a
  // reduction or a bcast; a rank's block of an allgather, alltoall,
  // reduce_scatter_block, gather or scatter; the mean block of an
  // allgatherv or reduce_scatter, which every rank knows alike; a barrier
  // moves none; an alltoallv is taken at every size, as no rank knows the
  // others' counts to decide alike): smaller ones go to MPI,
  // whose small-message collectives are as fast (docs/mpi.md has the
  // measurement). RAILYARD_MPI_MIN_BYTES: a size such as 64k.
  std::size_t min_bytes = std::size_t{64} << 10;

  // 0: quiet. 1: one line per rank at MPI_Init (what is active, over which
  // rails). 2: also why a call went to MPI, once per call site and reason.
  // RAILYARD_MPI_VERBOSE.
  int verbose = 0;

  [[nodiscard]] bool takes(MpiCollective collective) const noexcept {
    return enabled[static_cast<std::size_t>(collective)];
  }
  // "allreduce,bcast" or "none", for the init line.
  [[nodiscard]] std::string enabled_list() const;

  // Throws ConfigError naming the first invalid variable.
  [[nodiscard]] static ShimOptions from_environment();
};

}  // namespace railyard::mpi_shim
