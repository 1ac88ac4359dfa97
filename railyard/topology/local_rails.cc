#include "railyard/topology/local_rails.h"

#include <algorithm>

#include <fmt/format.h>

#include "railyard/common/detail/local_rank.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/topology/hwloc_topology.h"

namespace railyard::topology {
namespace {

// The CPUs in launcher order: NUMA node after NUMA node.
std::vector<unsigned> launcher_order(const MachineLayout& machine) {
  std::vector<unsigned> order;
  for (const auto& node : machine.numa_nodes) {
    order.insert(order.end(), node.cpus.begin(), node.cpus.end());
  }
  return order.empty() ? machine.cpus : order;
}

std::vector<unsigned> block_of(const std::vector<unsigned>& order, std::size_t rank,
                               std::size_t per_rank) {
  std::vector<unsigned> cpus;
  for (std::size_t i = rank * per_rank; i < std::min(order.size(), (rank + 1) * per_rank); ++i) {
    cpus.push_back(order[i]);
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

}  // namespace

LauncherBinding parse_launcher_binding(std::string_view text, std::string_view input) {
  if (text == "none") {
    return LauncherBinding::kNone;
  }
  if (text == "core") {
    return LauncherBinding::kCore;
  }
  if (text == "numa") {
    return LauncherBinding::kNuma;
  }
  throw ConfigError(std::string(input), std::string(text), "expected none, core or numa");
}

std::vector<RankPlacement> launcher_placements(const MachineLayout& machine, unsigned local_size,
                                               LauncherBinding binding) {
  std::vector<RankPlacement> ranks(local_size);
  if (binding == LauncherBinding::kNone || local_size == 0) {
    return ranks;
  }
  if (binding == LauncherBinding::kNuma && !machine.numa_nodes.empty()) {
    for (unsigned r = 0; r < local_size; ++r) {
      ranks[r].cpus = machine.numa_nodes[r % machine.numa_nodes.size()].cpus;
    }
    return ranks;
  }
  // Equal blocks; more ranks than CPUs wrap around (oversubscription).
  const std::vector<unsigned> order = launcher_order(machine);
  const std::size_t blocks = std::min<std::size_t>(local_size, order.size());
  for (unsigned r = 0; r < local_size; ++r) {
    const std::size_t b = r % blocks;
    std::vector<unsigned> cpus(order.begin() + static_cast<long>(b * order.size() / blocks),
                               order.begin() + static_cast<long>((b + 1) * order.size() / blocks));
    std::sort(cpus.begin(), cpus.end());
    ranks[r].cpus = std::move(cpus);
  }
  return ranks;
}

std::vector<RankPlacement> infer_placements(const MachineLayout& machine,
                                            const std::vector<unsigned>& own_cpus,
                                            unsigned local_rank, unsigned local_size,
                                            std::string& placement) {
  std::vector<RankPlacement> ranks(local_size);
  const bool bound = !own_cpus.empty() && !std::includes(own_cpus.begin(), own_cpus.end(),
                                                         machine.cpus.begin(), machine.cpus.end());
  if (!bound) {
    placement = "unbound: ranks spread over NUMA nodes by local rank";
    return ranks;
  }
  const std::vector<unsigned> order = launcher_order(machine);
  const std::size_t per_rank = own_cpus.size();
  if (block_of(order, local_rank, per_rank) == own_cpus) {
    for (unsigned r = 0; r < local_size; ++r) {
      ranks[r].cpus = block_of(order, r, per_rank);
      if (ranks[r].cpus.empty()) {
        ranks[r].cpus =
            block_of(order, r % std::max<std::size_t>(1, order.size() / per_rank), per_rank);
      }
    }
    placement = fmt::format("block: {} CPUs per rank in NUMA order (as --map-by core)", per_rank);
    return ranks;
  }
  const std::size_t nodes = machine.numa_nodes.size();
  if (nodes > 0) {
    const auto& node = machine.numa_nodes[local_rank % nodes].cpus;
    if (std::includes(node.begin(), node.end(), own_cpus.begin(), own_cpus.end())) {
      for (unsigned r = 0; r < local_size; ++r) {
        ranks[r].cpus = machine.numa_nodes[r % nodes].cpus;
      }
      placement = "round robin over NUMA nodes (as --map-by numa)";
      return ranks;
    }
  }
  ranks[local_rank].cpus = own_cpus;
  placement = "own binding only; the other ranks' unknown, spread by local rank";
  return ranks;
}

LocalRails rails_for_this_process() {
  const MappingOptions options = MappingOptions::from_environment();
  const LocalRank local = local_rank_from_environment();
  const HwlocTopology topology = HwlocTopology::from_environment();
  const MachineLayout machine = describe_machine(topology);
  const std::vector<unsigned> own =
      topology.is_this_machine() ? current_binding(topology) : std::vector<unsigned>{};
  LocalRails out;
  const auto ranks = infer_placements(machine, own, local.rank, local.size, out.placement);
  out.mapping = map_rails(machine, ranks, local.rank, options);
  if (out.mapping.unbound && binding_changes_rails(machine, options)) {
    log::warn(
        "local rank {} is not bound to CPUs: its rails are chosen as if it ran on the NUMA "
        "nodes its local rank picks (bind ranks, e.g. mpirun --bind-to core, for the "
        "nearest NICs)",
        local.rank);
  }
  log::info("rail mapping on {} ({} of {} local ranks from {}; binding {}; {}): {}", machine.origin,
            local.rank, local.size, local.source, cpu_list_text(own), out.placement,
            out.mapping.explain(local.rank));
  return out;
}

}  // namespace railyard::topology
