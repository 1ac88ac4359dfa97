#include "projection_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "openmpi_model.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"
#include "railyard/comm/communicator_options.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::info {
namespace {

using collectives::Collective;

// The collectives projected: the v-forms cost as their equal forms do.
constexpr std::array kProjected{
    Collective::kBarrier,   Collective::kBcast,         Collective::kAllreduce,
    Collective::kAllgather, Collective::kReduceScatter, Collective::kReduce,
    Collective::kAlltoall,  Collective::kGather,        Collective::kScatter};

// The fabric's figures by their keys in the report and the model file.
struct FabricField {
  const char* key;
  double collectives::FabricModel::*field;
};
constexpr std::array kFabricFields{
    FabricField{"rail_MBps", &collectives::FabricModel::rail_bytes_per_us},
    FabricField{"latency_us", &collectives::FabricModel::latency_us},
    FabricField{"message_gap_us", &collectives::FabricModel::message_gap_us},
    FabricField{"stripe_from_bytes", &collectives::FabricModel::stripe_from_bytes},
    FabricField{"host_latency_us", &collectives::FabricModel::host_latency_us},
    FabricField{"copy_MBps", &collectives::FabricModel::copy_bytes_per_us},
    FabricField{"host_copy_MBps", &collectives::FabricModel::host_copy_bytes_per_us},
    FabricField{"reduce_MBps", &collectives::FabricModel::reduce_bytes_per_us}};

// The sizes asked for, else 8 B to 256 MiB by factors of 8 (one size for
// a barrier).
std::vector<std::uint64_t> sizes_of(Collective collective,
                                    const std::vector<std::uint64_t>& asked) {
  if (collective == Collective::kBarrier) {
    return {0};
  }
  if (!asked.empty()) {
    return asked;
  }
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = 8; size <= (std::uint64_t{256} << 20); size *= 8) {
    sizes.push_back(size);
  }
  return sizes;
}

}  // namespace

void read_fabric_model(const std::string& path, collectives::FabricModel& fabric) {
  std::ifstream file(path);
  if (!file) {
    throw ConfigError("--model", path, "expected a JSON file of the fabric's figures to read");
  }
  const nlohmann::json model = nlohmann::json::parse(file, nullptr, false);
  if (!model.is_object()) {
    throw ConfigError("--model", path,
                      "expected a JSON object of the fabric's figures, e.g. {\"rail_MBps\": 119}");
  }
  for (const auto& item : model.items()) {
    const std::string& key = item.key();
    const nlohmann::json& value = item.value();
    if (key == "rails" && value.is_number_integer() && value.get<int>() >= 1) {
      fabric.rails = value.get<int>();
      continue;
    }
    const auto* known = std::ranges::find_if(
        kFabricFields, [&](const FabricField& entry) { return key == entry.key; });
    if (known == kFabricFields.end() && key != "rails") {
      std::vector<std::string> keys{"rails"};
      for (const FabricField& entry : kFabricFields) {
        keys.emplace_back(entry.key);
      }
      throw ConfigError(
          "--model", path,
          fmt::format("'{}' is no figure of the model; expected {}", key, join_list(keys, "or")));
    }
    if (known == kFabricFields.end() || !value.is_number() || !(value.get<double>() > 0.0)) {
      throw ConfigError("--model", path,
                        fmt::format("'{}' is {}; expected a number above 0{}", key, value.dump(),
                                    key == "rails" ? " (a whole one)" : ""));
    }
    fabric.*(known->field) = value.get<double>();
  }
}

nlohmann::json projection_report(const ProjectionOptions& options) {
  const collectives::AlgorithmTable table =
      comm::CommunicatorOptions::from_environment().algorithms;
  const int ranks = options.hosts * options.ranks_per_host;
  const collectives::HostShape shape{options.hosts, options.ranks_per_host};
  const auto& fabric = options.fabric;
  nlohmann::json out;
  out["hosts"] = options.hosts;
  out["ranks_per_host"] = options.ranks_per_host;
  out["fabric"] = {{"rails", fabric.rails}};
  for (const FabricField& entry : kFabricFields) {
    out["fabric"][entry.key] = fabric.*entry.field;
  }
  out["collectives"] = nlohmann::json::array();
  for (const Collective collective : kProjected) {
    nlohmann::json rows = nlohmann::json::array();
    for (const std::uint64_t bytes : sizes_of(collective, options.sizes)) {
      const collectives::CostQuery query{
          .bytes = bytes, .ranks = ranks, .shape = shape, .fabric = fabric};
      const collectives::Algorithm& chosen = table.choose(collective, bytes, ranks, shape);
      const collectives::Algorithm* fastest = nullptr;
      double fastest_us = std::numeric_limits<double>::infinity();
      for (const collectives::Algorithm* algorithm : collectives::all_algorithms()) {
        if (algorithm->collective != collective) {
          continue;
        }
        if (const double us = algorithm->cost(query); us < fastest_us) {
          fastest = algorithm;
          fastest_us = us;
        }
      }
      const OpenMpiChoice openmpi = openmpi_choice(collective, query);
      rows.push_back({{"bytes", bytes},
                      {"chosen", std::string(chosen.name)},
                      {"predicted_us", chosen.cost(query)},
                      {"fastest", fastest != nullptr ? std::string(fastest->name) : ""},
                      {"fastest_us", fastest_us},
                      {"openmpi", std::string(openmpi.algorithm)},
                      {"openmpi_us", openmpi.predicted_us}});
    }
    out["collectives"].push_back(
        {{"collective", std::string(to_string(collective))}, {"sizes", rows}});
  }
  return out;
}

std::string render_projection(const nlohmann::json& report) {
  const auto& fabric = report["fabric"];
  const int hosts = report["hosts"].get<int>();
  const int per_host = report["ranks_per_host"].get<int>();
  std::string out = fmt::format(
      "Projection for {} host(s) x {} rank(s) ({} ranks), {} rails of {:.0f} MB/s a host, "
      "{:.1f} us between hosts (the cost model, docs/benchmarks.md); Open MPI's choice is "
      "coll/tuned's fixed decision, priced alike; ratio: its time over railyard's\n",
      hosts, per_host, hosts * per_host, fabric["rails"].get<int>(),
      fabric["rail_MBps"].get<double>(), fabric["latency_us"].get<double>());
  for (const auto& entry : report["collectives"]) {
    out += fmt::format("  {}\n    {:>9}  {:<19} {:>13}  {:<19} {:>13}  {:<19} {:>13} {:>8}\n",
                       entry["collective"].get<std::string>(), "size", "chosen", "predicted",
                       "fastest modelled", "its time", "Open MPI's choice", "its time", "ratio");
    for (const auto& row : entry["sizes"]) {
      const auto chosen = row["chosen"].get<std::string>();
      const auto fastest = row["fastest"].get<std::string>();
      const double predicted = row["predicted_us"].get<double>();
      const double openmpi = row["openmpi_us"].get<double>();
      out += fmt::format(
          "    {:>9}  {:<19} {:>10.1f} us  {:<19} {:>10.1f} us  {:<19} {:>10.1f} us {:>7.2f}x\n",
          describe_size(row["bytes"].get<std::uint64_t>()), chosen, predicted,
          fastest == chosen ? "(the same)" : fastest, row["fastest_us"].get<double>(),
          row["openmpi"].get<std::string>(), openmpi, predicted > 0.0 ? openmpi / predicted : 1.0);
    }
  }
  return out;
}

}  // namespace railyard::info
