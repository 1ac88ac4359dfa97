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

// The local rank and size of the launch identity (launch_identity.h: its
// rules and errors apply); rank 0 of 1 when no launcher gives one.
[[nodiscard]] LocalRank local_rank_from_environment();

// The task count of node `node` in Slurm's SLURM_TASKS_PER_NODE ("2(x3),1":
// nodes 0-2 run two tasks, node 3 one). Throws ConfigError naming the
// variable for a malformed list or one too short.
[[nodiscard]] unsigned slurm_tasks_on_node(std::string_view text, unsigned node);

}  // namespace railyard
