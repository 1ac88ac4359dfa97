#include "algorithm_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"
#include "railyard/comm/communicator_options.h"
#include "railyard/common/detail/parse.h"

namespace railyard::info {
namespace {

using Hosts = collectives::BuiltinChoice::Hosts;

// The teams a row applies to, in words ("" when any).
std::string when(const collectives::BuiltinChoice& row) {
  std::vector<std::string> parts;
  if (row.min_ranks > 1 && row.max_ranks == INT32_MAX) {
    parts.push_back(fmt::format("{} ranks or more", row.min_ranks));
  } else if (row.max_ranks != INT32_MAX) {
    parts.push_back(fmt::format("{} to {} ranks", row.min_ranks, row.max_ranks));
  }
  const bool several = row.hosts == Hosts::kSeveral || row.hosts == Hosts::kSeveralWithSeveralRanks;
  const int least_hosts = std::max(row.min_hosts, several ? 2 : 1);
  if (row.max_hosts == 1) {
    parts.emplace_back("one host");
  } else if (row.max_hosts == least_hosts) {
    parts.push_back(fmt::format("{} hosts", row.max_hosts));
  } else if (row.max_hosts != INT32_MAX) {
    parts.push_back(fmt::format("{} to {} hosts", least_hosts, row.max_hosts));
  } else if (row.min_hosts > 1) {
    parts.push_back(fmt::format("{} hosts or more", row.min_hosts));
  }
  switch (row.hosts) {
    case Hosts::kAny:
      break;
    case Hosts::kSeveral:
      if (row.min_hosts <= 1 && row.max_hosts == INT32_MAX) {
        parts.emplace_back("several hosts");
      }
      break;
    case Hosts::kOneWithSeveralRanks:
      parts.emplace_back("one host, several ranks");
      break;
    case Hosts::kSeveralWithSeveralRanks:
      parts.emplace_back("several hosts, as many ranks on each, more than one");
      break;
  }
  if (row.max_ranks_per_host == 1) {
    parts.emplace_back("one rank a host");
  } else if (row.max_ranks_per_host != INT32_MAX) {
    parts.push_back(fmt::format("at most {} ranks a host", row.max_ranks_per_host));
  }
  if (row.per_rank) {
    parts.emplace_back("bytes of one rank's block");
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

nlohmann::json algorithm_report() {
  const collectives::AlgorithmTable table =
      comm::CommunicatorOptions::from_environment().algorithms;
  nlohmann::json out;
  out["overrides"] = table.spec();
  out["builtin"] = nlohmann::json::array();
  for (const collectives::BuiltinChoice& row : collectives::builtin_choices()) {
    out["builtin"].push_back(
        {{"collective", std::string(to_string(row.collective))},
         {"algorithm", std::string(row.algorithm)},
         {"from_bytes", row.from},
         {"to_bytes", row.to == UINT64_MAX ? nlohmann::json() : nlohmann::json(row.to)},
         {"when", when(row)}});
  }
  out["algorithms"] = nlohmann::json::array();
  for (const collectives::Algorithm* algorithm : collectives::all_algorithms()) {
    out["algorithms"].push_back({{"collective", std::string(to_string(algorithm->collective))},
                                 {"name", std::string(algorithm->name)},
                                 {"description", std::string(algorithm->description)}});
  }
  return out;
}

std::string render_algorithms(const nlohmann::json& report) {
  std::string out =
      "Collective algorithms (force one per size range with RAILYARD_ALGO, e.g. "
      "allreduce:0-8k:recursive_doubling;allreduce:8k-inf:ring)\n";
  for (const auto& entry : report["algorithms"]) {
    out += fmt::format("  {:<15} {:<19} {}\n", entry["collective"].get<std::string>(),
                       entry["name"].get<std::string>(), entry["description"].get<std::string>());
  }
  out += "Built-in choice (the first row that fits a call wins):\n";
  for (const auto& row : report["builtin"]) {
    const std::string to =
        row["to_bytes"].is_null() ? "inf" : size_argument(row["to_bytes"].get<std::uint64_t>());
    const auto when_text = row["when"].get<std::string>();
    const std::string range =
        fmt::format("{}-{}", size_argument(row["from_bytes"].get<std::uint64_t>()), to);
    const auto algorithm = row["algorithm"].get<std::string>();
    out += when_text.empty()
               ? fmt::format("  {:<15} {:<12} {}\n", row["collective"].get<std::string>(), range,
                             algorithm)
               : fmt::format("  {:<15} {:<12} {:<19} ({})\n", row["collective"].get<std::string>(),
                             range, algorithm, when_text);
  }
  const auto overrides = report["overrides"].get<std::string>();
  out += fmt::format("RAILYARD_ALGO: {}\n",
                     overrides.empty() ? "not set (the built-in choice everywhere)" : overrides);
  return out;
}

}  // namespace railyard::info
