// What railyard-run starts: each rank's environment and CPUs, computed
// before any process exists so it can be checked and tested alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "railyard/topology/local_rails.h"

namespace railyard::run {

struct LaunchOptions {
  unsigned ranks = 1;
  // RAILYARD_RAILS for every rank (nearest, all or a count), when given.
  std::optional<std::string> rails;
  topology::LauncherBinding binding = topology::LauncherBinding::kNone;
  // The whole job's time limit; unset: none.
  std::optional<std::chrono::milliseconds> timeout;
  // How long ranks told to stop (SIGTERM) get before SIGKILL.
  std::chrono::milliseconds grace{3000};
  std::vector<std::string> command;  // program and arguments
};

struct RankLaunch {
  unsigned rank = 0;
  std::vector<std::string> environment;  // "NAME=value", the whole environment
  std::vector<unsigned> cpus;            // empty: not bound
};

// Variables other launchers set to say who a process is. A rank inherits
// none of them, or they would contradict RAILYARD_RANK (railyard-run run
// inside an mpirun or srun step).
[[nodiscard]] const std::vector<std::string>& foreign_identity_variables();

// Each rank's environment: `inherited` without the foreign identity
// variables, plus RAILYARD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE, _ROOT
// (`root`), _JOB_KEY (`job_key`) and, with options.rails, RAILYARD_RAILS.
// `placements` gives each rank's CPUs (empty or one per rank).
[[nodiscard]] std::vector<RankLaunch> plan_ranks(
    const LaunchOptions& options, const std::vector<std::string>& inherited,
    const std::string& root, const std::string& job_key,
    const std::vector<topology::RankPlacement>& placements);

}  // namespace railyard::run
