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
};

inline constexpr std::array kAllMpiCollectives{MpiCollective::kAllreduce,
                                               MpiCollective::kReduce,
                                               MpiCollective::kBcast,
                                               MpiCollective::kAllgather,
                                               MpiCollective::kReduceScatterBlock,
                                               MpiCollective::kAlltoall,
                                               MpiCollective::kBarrier};

// "allreduce", "reduce", "bcast", "allgather", "reduce_scatter_block",
// "alltoall", "barrier": the names RAILYARD_MPI_COLLECTIVES takes.
[[nodiscard]] std::string_view to_string(MpiCollective collective) noexcept;

struct ShimOptions {
  // Which collectives go to railyard; the others always go to MPI.
  // RAILYARD_MPI_COLLECTIVES: a comma list of the names above, "all" (the
  // default) or "none".
  std::array<bool, kAllMpiCollectives.size()> enabled{true, true, true, true, true, true, true};

  // The smallest message the shim takes over, in bytes (the vector of a
  // reduction or a bcast; a rank's block of an allgather, alltoall or
  // reduce_scatter_block; a barrier moves none): smaller ones go to MPI,
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
