// What the MPI shim takes over from MPI, read from the environment at
// MPI_Init (docs/mpi.md, docs/environment.md).
#pragma once

#include <array>
#include <string>

#include "railyard/mpi_shim/detail/carry_table.h"
#include "railyard/mpi_shim/detail/mpi_collective.h"

namespace railyard::mpi_shim {

struct ShimOptions {
  // Which collectives go to railyard; the others always go to MPI.
  // RAILYARD_MPI_COLLECTIVES: a comma list of the names above, "all" (the
  // default) or "none".
  std::array<bool, kAllMpiCollectives.size()> enabled = every_collective();

  // The sizes each collective is carried at, by layout (carry_table.h):
  // the size of a call is its reduction's or bcast's vector; a rank's block
  // of an allgather, alltoall, reduce_scatter_block, gather or scatter; the
  // mean block of an allgatherv or reduce_scatter, which every rank knows
  // alike. A barrier moves none; an alltoallv, whose counts no rank knows
  // for the others, is carried at every size or none by layout alone.
  // RAILYARD_MPI_MIN_BYTES overrides the table.
  CarryTable carry;

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
