// railyard-info --algorithms --hosts H --ranks-per-host R: for a job of
// that shape, each collective's algorithm by size as the selection chooses
// it, the cost model's time for it, the algorithm the model finds fastest
// (railyard/collectives/cost_model.h), and Open MPI's own choice priced
// alike (openmpi_model.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "railyard/collectives/cost_model.h"

namespace railyard::info {

struct ProjectionOptions {
  int hosts = 0;  // 0: no projection
  int ranks_per_host = 1;
  collectives::FabricModel fabric;
  std::vector<std::uint64_t> sizes;  // empty: 8 B to 256 MiB by factors of 8
};

// Sets the figures a JSON object in `path` names, with the keys of the
// report's "fabric" object (rails, rail_MBps, latency_us, ...; as
// scripts/fit-cost-model.py writes them). Throws ConfigError naming the
// file and the key at fault.
void read_fabric_model(const std::string& path, collectives::FabricModel& fabric);

// Throws ConfigError when RAILYARD_ALGO is invalid.
[[nodiscard]] nlohmann::json projection_report(const ProjectionOptions& options);
[[nodiscard]] std::string render_projection(const nlohmann::json& report);

}  // namespace railyard::info
