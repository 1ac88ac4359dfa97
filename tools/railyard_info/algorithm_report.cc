#include "algorithm_report.h"

#include <fmt/format.h>

#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"
#include "railyard/comm/communicator_options.h"

namespace railyard::info {

nlohmann::json algorithm_report() {
  const collectives::AlgorithmTable table =
      comm::CommunicatorOptions::from_environment().algorithms;
  nlohmann::json out;
  out["overrides"] = table.spec();
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
  const auto overrides = report["overrides"].get<std::string>();
  out += fmt::format("RAILYARD_ALGO: {}\n",
                     overrides.empty() ? "not set (the built-in choice everywhere)" : overrides);
  return out;
}

}  // namespace railyard::info
