#include "railyard/comm/detail/rank_rails.h"

#include <fmt/format.h>

#include <optional>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/rail_addresses.h"
#include "railyard/topology/machine_layout.h"
#include "railyard/topology/rail_mapping.h"

namespace railyard::comm::detail {

bool reads_host_machine_for_card(std::optional<unsigned> launcher_local_rank) {
  if (mrail::rails_named_in_environment()) {
    return false;  // no rank needs the topology
  }
  return !launcher_local_rank || *launcher_local_rank == 0;
}

HostMachine host_machine_for(const std::vector<RankCard>& cards, const HostPeers& host,
                             int& from_rank) {
  for (const int rank : host.ranks) {
    if (const auto& machine = cards[static_cast<std::size_t>(rank)].machine) {
      from_rank = rank;
      return *machine;
    }
  }
  from_rank = -1;
  return read_host_machine();
}

mrail::RailChoice rails_for_rank(const std::vector<RankCard>& cards, const HostPeers& host) {
  if (mrail::rails_named_in_environment()) {
    return mrail::rails_from_environment();
  }
  try {
    auto options = topology::MappingOptions::from_environment();
    if (!options.rails_given) {
      // A rank must reach every other rank, and a rail reaches only the
      // ranks with a rail on its network: with two ranks per host, each
      // with its half of the NICs, rank 0 of one host and rank 1 of the
      // other would share none. So a rank opens every NIC, its share first
      // (its home rail, the fixed policy's, stays its own).
      options.rails.kind = topology::RailsChoice::Kind::kAll;
    }
    int from_rank = -1;
    const HostMachine host_machine = host_machine_for(cards, host, from_rank);
    const topology::MachineLayout& machine = host_machine.layout;
    // Placements are CPU sets of this machine; with a topology read from a
    // file (RAILYARD_TOPOLOGY) they mean nothing there, so ranks count as
    // unbound. A rank allowed on every CPU is unbound too.
    std::vector<topology::RankPlacement> placements(host.ranks.size());
    for (std::size_t i = 0; i < host.ranks.size() && host_machine.this_machine; ++i) {
      const auto& cpus = cards[static_cast<std::size_t>(host.ranks[i])].cpus;
      if (cpus != machine.cpus) {
        placements[i].cpus = cpus;
      }
    }
    const auto mapping = topology::map_rails(machine, placements, host.local_rank, options);
    log::info(
        "rail mapping on {} (read by {}) for local rank {} of {} from the ranks' gathered "
        "CPU sets: {}",
        machine.origin,
        from_rank < 0 ? std::string("this rank") : fmt::format("rank {}", from_rank),
        host.local_rank, host.local_size(), mapping.explain(host.local_rank));
    mrail::RailChoice choice;
    for (const auto& nic : mapping.rails) {
      choice.rails.push_back(nic.name);
    }
    choice.home_rail = 0;
    choice.home_reason = fmt::format("the topology's nearest NIC for local rank {}, {}",
                                     host.local_rank, mapping.rails.front().name);
    return choice;
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& error) {
    log::warn(
        "no rails from the topology ({}); using one rail on the provider's default interface. "
        "Set FI_OFI_MRAIL_ADDR to name the rails.",
        error.what());
  }
  mrail::RailChoice fallback;
  fallback.rails = {std::string()};
  return fallback;
}

}  // namespace railyard::comm::detail
