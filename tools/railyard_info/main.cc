// railyard-info: the machine as railyard sees it (NUMA nodes, NICs and
// their locality, usable providers), the effective multi-rail tables, and
// which rails each local rank would get; or (--algorithms) the collective
// algorithms, and with --hosts the cost model's projection for a job of
// that shape.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>

#include "algorithm_report.h"
#include "machine_report.h"
#include "projection_report.h"
#include "railyard/common/detail/parse.h"
#include "tools/support/comma_list.h"
#include "tools/support/command_line.h"
#include "tools/support/tool_main.h"

namespace {

// The model prices every rank's sends in every step: past this many ranks
// a projection takes minutes.
constexpr int kMostProjectedRanks = 16384;

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
  auto* algorithms_flag =
      app.add_flag("--algorithms", algorithms,
                   "list the collective algorithms and RAILYARD_ALGO's overrides instead");
  railyard::info::ProjectionOptions projection;
  auto& fabric = projection.fabric;
  auto* hosts_option =
      app.add_option("--hosts", projection.hosts,
                     "with --algorithms: project each collective's choice and time to this many "
                     "hosts (the cost model)")
          ->check(CLI::Range(1, 16384))
          ->needs(algorithms_flag);
  app.add_option("--ranks-per-host", projection.ranks_per_host,
                 "with --hosts: ranks on each host (default 1)")
      ->check(CLI::Range(1, 1024))
      ->needs(hosts_option);
  std::string model_file;
  std::string sizes_text;
  app.add_option("--model", model_file,
                 "with --hosts: a JSON file of the fabric's figures (scripts/fit-cost-model.py "
                 "writes one); --rails, --rail-rate and --latency override it")
      ->needs(hosts_option);
  app.add_option("--sizes", sizes_text,
                 "with --hosts: the sizes to price, a comma list (k, m, g suffixes); default 8 "
                 "B to 256 MiB by factors of 8")
      ->needs(hosts_option);
  std::optional<int> rails;
  std::optional<double> rail_rate;
  std::optional<double> latency;
  app.add_option("--rails", rails, "with --hosts: rails a host has (default 4)")
      ->check(CLI::Range(1, 64))
      ->needs(hosts_option);
  app.add_option("--rail-rate", rail_rate,
                 "with --hosts: one rail's rate in MB/s (default: the emulated hosts' 119)")
      ->check(CLI::Range(1.0, 1e6))
      ->needs(hosts_option);
  app.add_option("--latency", latency,
                 "with --hosts: a small message's time between hosts in us (default 6.792)")
      ->check(CLI::Range(0.1, 1e5))
      ->needs(hosts_option);
  if (const auto status = railyard::tools::parse_command_line(app, argc, argv, "railyard-info: ")) {
    return *status;
  }
  if (projection.hosts > 0) {
    // The file first, so the flags given beside it win.
    if (!model_file.empty()) {
      railyard::info::read_fabric_model(model_file, fabric);
    }
    fabric.rails = rails.value_or(fabric.rails);
    fabric.rail_bytes_per_us = rail_rate.value_or(fabric.rail_bytes_per_us);
    fabric.latency_us = latency.value_or(fabric.latency_us);
    if (!sizes_text.empty()) {
      for (const std::string& size : railyard::tools::comma_list("--sizes", sizes_text)) {
        projection.sizes.push_back(railyard::parse_size("--sizes", size));
      }
    }
    const int ranks = projection.hosts * projection.ranks_per_host;
    if (ranks < 2 || ranks > kMostProjectedRanks) {
      fmt::print(stderr,
                 "railyard-info: --hosts {} --ranks-per-host {} is a job of {} rank(s); expected "
                 "2 to {}\n",
                 projection.hosts, projection.ranks_per_host, ranks, kMostProjectedRanks);
      return 2;
    }
    const auto report = railyard::info::projection_report(projection);
    fmt::print("{}", json ? report.dump(2) + "\n" : railyard::info::render_projection(report));
    return 0;
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
