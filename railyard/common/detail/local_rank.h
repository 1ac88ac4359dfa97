// This process's rank among the job's processes on the same node, as the
// launcher tells it through the environment.
#pragma once

#include <string>
#include <string_view>

namespace railyard {

struct LocalRank {
  unsigned rank = 0;
  unsigned size = 1;
  // The variable the rank came from, or "default" when no launcher set one.
  std::string source = "default";
};

// Looks, in order, at RAILYARD_LOCAL_RANK/RAILYARD_LOCAL_SIZE, Open MPI's
// OMPI_COMM_WORLD_LOCAL_RANK/_SIZE, MPICH/Hydra's MPI_LOCALRANKID/
// MPI_LOCALNRANKS, and Slurm's SLURM_LOCALID with SLURM_NTASKS_PER_NODE, or
// else SLURM_TASKS_PER_NODE's entry for SLURM_NODEID (size rank + 1 if no
// size is set). The first rank variable that is set wins; its size
// variable is optional. Throws ConfigError for a value that is not a number or
// a rank that is not below its size.
[[nodiscard]] LocalRank local_rank_from_environment();

// The task count of node `node` in Slurm's SLURM_TASKS_PER_NODE ("2(x3),1":
// nodes 0-2 run two tasks, node 3 one). Throws ConfigError naming the
// variable for a malformed list or one too short.
[[nodiscard]] unsigned slurm_tasks_on_node(std::string_view text, unsigned node);

}  // namespace railyard
