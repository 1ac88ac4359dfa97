// railyard-run: starts the ranks of a job on this machine, each with the
// environment railyard's root bootstrap reads (RAILYARD_RANK, _SIZE,
// _LOCAL_RANK, _LOCAL_SIZE, _ROOT on a fresh loopback port, a random
// _JOB_KEY), forwards their output prefixed with the rank, and returns the
// first non-zero exit status. docs/running.md.
#include <unistd.h>
#include <csignal>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "job_supervisor.h"
#include "launch_plan.h"
#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/machine_layout.h"
#include "railyard/topology/rail_mapping.h"
#include "tools/support/command_line.h"
#include "tools/support/free_port.h"
#include "tools/support/tool_main.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for the ranks

namespace {

using railyard::run::LaunchOptions;

std::vector<std::string> this_environment() {
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {  // NOLINT(*-pointer-arithmetic)
    out.emplace_back(*entry);
  }
  return out;
}

std::vector<railyard::topology::RankPlacement> placements_for(const LaunchOptions& options) {
  if (options.binding == railyard::topology::LauncherBinding::kNone) {
    return {};
  }
  const auto topology = railyard::topology::HwlocTopology::load_this_machine();
  const auto machine = railyard::topology::describe_machine(topology);
  return railyard::topology::launcher_placements(machine, options.ranks, options.binding);
}

int run(int argc, char** argv) {
  CLI::App app{
      "railyard-run: start the ranks of a railyard job on this machine\n"
      "usage: railyard-run -n N [--rails N] [--bind core|numa|none] [--timeout T] program "
      "[args...]"};
  LaunchOptions options;
  std::string rails;
  std::string binding = "none";
  std::string timeout;
  bool verbose = false;
  app.add_option("-n,--np", options.ranks, "number of ranks to start")
      ->required()
      ->check(CLI::Range(1U, 4096U));
  app.add_option("--rails", rails,
                 "rails per rank, as RAILYARD_RAILS: nearest, all or a count (default: "
                 "RAILYARD_RAILS, or nearest)");
  app.add_option("--bind", binding,
                 "bind ranks to CPUs: core (a block of cores each), numa (NUMA nodes round "
                 "robin) or none");
  app.add_option("--timeout", timeout,
                 "stop the job after this long: digits with ms, s, m or h (a bare number is "
                 "seconds); default: no limit");
  app.add_flag("-v,--verbose", verbose, "say on stderr where the root is and where ranks run");
  app.prefix_command();  // the program and its arguments start at the first positional
  // --help exits 0; a usage error exits 2, as other launchers' do.
  if (const auto status = railyard::tools::parse_command_line(app, argc, argv, "railyard-run: ")) {
    return *status;
  }
  options.command = app.remaining();
  // `--` ends the launcher's options, as it does for mpirun and srun.
  if (!options.command.empty() && options.command.front() == "--") {
    options.command.erase(options.command.begin());
  }
  if (options.command.empty()) {
    throw railyard::ConfigError("program", "", "expected a program to run after the options");
  }
  if (!rails.empty()) {
    (void)railyard::topology::RailsChoice::parse(rails, "--rails");
    options.rails = rails;
  }
  options.binding = railyard::topology::parse_launcher_binding(binding, "--bind");
  if (!timeout.empty()) {
    options.timeout =
        railyard::parse_duration("--timeout", timeout, std::chrono::seconds(1),
                                 std::chrono::milliseconds(1), std::chrono::hours(24 * 7));
  }
  const std::string root = fmt::format("127.0.0.1:{}", railyard::tools::free_tcp_port());
  const auto plan =
      railyard::run::plan_ranks(options, this_environment(), root,
                                railyard::bootstrap::random_job_key(), placements_for(options));
  if (verbose) {
    fmt::print(stderr, "railyard-run: {} rank(s), root {}, binding {}\n", options.ranks, root,
               binding);
    for (const auto& rank : plan) {
      if (!rank.cpus.empty()) {
        fmt::print(stderr, "railyard-run: rank {} on CPUs {}\n", rank.rank,
                   railyard::topology::cpu_list_text(rank.cpus));
      }
    }
  }
  // A reader that goes away (| head) must not kill the launcher while it
  // still has ranks to stop.
  (void)::signal(SIGPIPE, SIG_IGN);
  try {
    return railyard::run::run_job(options, plan);
  } catch (const railyard::Error& error) {
    if (error.call() == "execvpe") {
      fmt::print(stderr, "railyard-run: {}\n", error.what());
      return railyard::run::kCannotExecuteStatus;
    }
    throw;
  }
}

}  // namespace

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-run: ", run, argc, argv);
}
