// This process's rank among the job's processes on the same node, as the
// launcher tells it through the environment.
#pragma once

#include <string>

namespace railyard {

struct LocalRank {
  unsigned rank = 0;
  unsigned size = 1;
  // The variable the rank came from, or "default" when no launcher set one.
  std::string source = "default";
};

// Looks, in order, at RAILYARD_LOCAL_RANK/RAILYARD_LOCAL_SIZE, Open MPI's
// OMPI_COMM_WORLD_LOCAL_RANK/_SIZE, MPICH/Hydra's MPI_LOCALRANKID/
// MPI_LOCALNRANKS, and Slurm's SLURM_LOCALID with SLURM_NTASKS_PER_NODE
// (size 1 if unset). The first rank variable that is set wins; its size
// variable is optional. Throws ConfigError for a value that is not a number or
// a rank that is not below its size.
[[nodiscard]] LocalRank local_rank_from_environment();

}  // namespace railyard
