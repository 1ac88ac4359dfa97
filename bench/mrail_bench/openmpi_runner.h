// Open MPI's TCP transport over the same rails, measured by our MPI program
// (railyard-mpi-bandwidth) under mpirun, one rank in each emulated host.
#pragma once

#include <chrono>
#include <string>

#include "measure.h"
#include "subject.h"

namespace railyard::bench {

struct OpenMpiSetup {
  std::string program;  // railyard-mpi-bandwidth
  std::string agent;    // scripts/mpirun-netns-agent.sh
};

// Needs both hosts as namespaces (mpirun places rank 1 in host b through the
// agent). Killed and reported after `limit`.
[[nodiscard]] SubjectResult run_openmpi(const Hosts& hosts, const MeasureSettings& settings,
                                        const OpenMpiSetup& setup, std::chrono::seconds limit);

}  // namespace railyard::bench
