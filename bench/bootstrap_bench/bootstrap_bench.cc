// How long a job takes to come up: each rank times Communicator::world()
// (launch identity, bootstrap, rails, endpoint, address exchange) and how
// long after its process started the communicator was ready; rank 0 prints
// the slowest rank's figures on one line. Run it under the launcher to
// measure:
//   railyard-run -n 8 railyard-bootstrap-bench             (root rendezvous)
//   mpirun -np 8 --bind-to none railyard-bootstrap-bench   (PMIx)
// scripts/bootstrap-bench.sh runs both beside MPI_Init, in rounds.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "process_age.h"
#include "railyard/comm/communicator.h"
#include "tools/support/command_line.h"
#include "tools/support/tool_main.h"

namespace {

using Clock = std::chrono::steady_clock;

// Per rank: ms from process start to ready, ms inside world().
using Times = std::array<double, 2>;

int run(int argc, char** argv) {
  const auto entered = Clock::now();
  const double started_ms = railyard_process_age_ms();
  CLI::App app{"Times how long after its processes start a railyard job is ready"};
  std::string label = "railyard";
  app.add_option("--label", label, "names the run in the result line");
  if (const auto status =
          railyard::tools::parse_command_line(app, argc, argv, "railyard-bootstrap-bench: ")) {
    return *status;
  }

  railyard::comm::Communicator world = railyard::comm::Communicator::world();
  const double world_ms = std::chrono::duration<double, std::milli>(Clock::now() - entered).count();
  // Process start to ready: the kernel's start time plus what has passed
  // since main() read it.
  const Times mine{started_ms >= 0 ? started_ms + world_ms : -1.0, world_ms};
  if (world.rank() != 0) {
    world.send(mine.data(), sizeof(mine), 0, 1);
    return 0;
  }
  std::vector<Times> all(static_cast<std::size_t>(world.size()));
  all[0] = mine;
  for (int rank = 1; rank < world.size(); ++rank) {
    (void)world.recv(all[static_cast<std::size_t>(rank)].data(), sizeof(Times), rank, 1);
  }
  const auto slowest = [&](std::size_t field) {
    double worst = 0;
    for (const auto& times : all) {
      worst = std::max(worst, times[field]);
    }
    return worst;
  };
  fmt::print("RESULT label={} ranks={} ready_after_start_ms={:.1f} world_ms={:.1f}\n", label,
             world.size(), slowest(0), slowest(1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-bootstrap-bench: ", run, argc, argv);
}
