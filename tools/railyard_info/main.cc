// railyard-info: the machine as railyard sees it (NUMA nodes, NICs and
// their locality, usable providers), the effective multi-rail tables, and
// which rails each local rank would get; or (--algorithms) the collective
// algorithms.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>

#include "algorithm_report.h"
#include "machine_report.h"
#include "tools/support/command_line.h"
#include "tools/support/tool_main.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"railyard-info: NICs, their locality, providers and the rank-to-rail mapping"};
  railyard::info::ReportOptions options;
  bool json = false;
  bool algorithms = false;
  app.add_option("--topology", options.topology,
                 "hwloc XML file to describe instead of this machine (or RAILYARD_TOPOLOGY)");
  app.add_option("--local-size", options.local_size, "local ranks per node to map")
      ->check(CLI::Range(1U, 4096U));
  app.add_option("--binding", options.binding,
                 "how the launcher binds those ranks: none, core (--map-by core) or numa "
                 "(--map-by numa)")
      ->check(CLI::IsMember({"none", "core", "numa"}));
  app.add_flag("--all-interfaces", options.include_down,
               "also list interfaces that are down, and loopback");
  app.add_flag("--json", json, "print the report as JSON");
  app.add_flag("--algorithms", algorithms,
               "list the collective algorithms and RAILYARD_ALGO's overrides instead");
  if (const auto status = railyard::tools::parse_command_line(app, argc, argv, "railyard-info: ")) {
    return *status;
  }
  if (algorithms) {
    const auto report = railyard::info::algorithm_report();
    fmt::print("{}", json ? report.dump(2) + "\n" : railyard::info::render_algorithms(report));
    return 0;
  }
  options.include_loopback = options.include_down;
  const auto report = railyard::info::gather_report(options);
  fmt::print("{}", json ? report.dump(2) + "\n" : railyard::info::render_text(report));
  // Scripts check a configuration by the exit status: everything is shown
  // first, then an invalid setting fails the run.
  if (const auto invalid = railyard::info::invalid_settings(report); !invalid.empty()) {
    std::fflush(stdout);
    fmt::print(stderr, "railyard-info: invalid settings: {} (see the errors above)\n",
               fmt::join(invalid, "; "));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-info: ", run, argc, argv);
}
