#include "railyard/topology/rail_mapping.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::topology {
namespace {

constexpr std::size_t kMaxRails = 64;

bool within(const std::vector<unsigned>& inner, const std::vector<unsigned>& outer) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

bool meets(const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](unsigned x) { return std::binary_search(b.begin(), b.end(), x); });
}

// The groups (NUMA nodes or packages) whose CPUs meet `cpus`.
std::vector<unsigned> groups_meeting(const std::vector<CpuGroup>& groups,
                                     const std::vector<unsigned>& cpus) {
  std::vector<unsigned> out;
  for (const auto& group : groups) {
    if (meets(group.cpus, cpus)) {
      out.push_back(group.os_index);
    }
  }
  return out;
}

// The NICs at the best locality level for a rank's CPUs.
struct Domain {
  LocalityLevel level = LocalityLevel::kMachine;
  std::vector<unsigned> groups;   // the NUMA nodes or packages its CPUs meet
  std::vector<std::size_t> nics;  // indexes into the NIC list
};

Domain domain_of(const MachineLayout& machine, const std::vector<Nic>& nics,
                 const std::vector<unsigned>& cpus) {
  const auto try_level = [&](LocalityLevel level, const std::vector<CpuGroup>& groups,
                             auto nic_groups) -> std::optional<Domain> {
    Domain domain{level, groups_meeting(groups, cpus), {}};
    if (domain.groups.empty() || domain.groups.size() == groups.size()) {
      return std::nullopt;  // no locality finer than the machine's
    }
    for (std::size_t i = 0; i < nics.size(); ++i) {
      const std::vector<unsigned>& local = nic_groups(nics[i]);
      if (!local.empty() && within(local, domain.groups)) {
        domain.nics.push_back(i);
      }
    }
    return domain.nics.empty() ? std::nullopt : std::optional<Domain>(domain);
  };
  if (auto domain = try_level(
          LocalityLevel::kNumaNode, machine.numa_nodes,
          [](const Nic& nic) -> const auto& { return nic.numa_nodes; })) {
    return *domain;
  }
  if (auto domain = try_level(
          LocalityLevel::kPackage, machine.packages,
          [](const Nic& nic) -> const auto& { return nic.packages; })) {
    return *domain;
  }
  Domain domain;
  for (std::size_t i = 0; i < nics.size(); ++i) {
    domain.nics.push_back(i);
  }
  return domain;
}

// Best bandwidth first; among equals, the first port of every card before
// any second port; then bus order.
std::vector<std::size_t> preference_order(const std::vector<Nic>& nics,
                                          std::vector<std::size_t> candidates) {
  std::map<std::size_t, std::size_t> port_of;  // NIC index -> port ordinal on its card
  std::map<std::string, std::size_t> ports_seen;
  for (std::size_t i : candidates) {
    const Nic& nic = nics[i];
    port_of[i] = nic.pci_device.empty() ? 0 : ports_seen[nic.pci_device]++;
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    const std::uint64_t speed_a = nics[a].speed_mbps.value_or(0);
    const std::uint64_t speed_b = nics[b].speed_mbps.value_or(0);
    if (speed_a != speed_b) {
      return speed_a > speed_b;
    }
    return port_of[a] < port_of[b];
  });
  return candidates;
}

// Unbound ranks are spread over the NUMA nodes by local rank, in blocks:
// with fewer ranks than nodes each gets several nodes, with more several
// ranks share a node.
std::vector<unsigned> effective_cpus(const MachineLayout& machine, const RankPlacement& placement,
                                     unsigned local_rank, std::size_t local_size, bool& unbound) {
  unbound = placement.cpus.empty() || within(machine.cpus, placement.cpus);
  if (!unbound || machine.numa_nodes.empty()) {
    return placement.cpus.empty() ? machine.cpus : placement.cpus;
  }
  const std::size_t nodes = machine.numa_nodes.size();
  const std::size_t first = local_rank * nodes / local_size;
  const std::size_t last = std::max(first + 1, (local_rank + 1) * nodes / local_size);
  std::vector<unsigned> cpus;
  for (std::size_t i = first; i < last; ++i) {
    cpus.insert(cpus.end(), machine.numa_nodes[i].cpus.begin(), machine.numa_nodes[i].cpus.end());
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

}  // namespace

RailsChoice RailsChoice::parse(std::string_view text, std::string_view input) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "nearest") {
    return {};
  }
  if (lower == "all") {
    return {Kind::kAll, 0};
  }
  if (!lower.empty() && std::all_of(lower.begin(), lower.end(),
                                    [](unsigned char c) { return std::isdigit(c) != 0; })) {
    const auto count = parse_uint(input, text, 1, kMaxRails);
    return {Kind::kCount, static_cast<std::size_t>(count)};
  }
  throw ConfigError(
      std::string(input), std::string(text),
      fmt::format("expected 'nearest', 'all' or a rail count from 1 to {}", kMaxRails));
}

MappingOptions MappingOptions::from_environment() {
  MappingOptions options;
  if (const auto text = env::get("RAILYARD_RAILS")) {
    options.rails = RailsChoice::parse(*text);
    options.rails_given = true;
  }
  if (const auto text = env::get("RAILYARD_NET_IFACES")) {
    options.filter = InterfaceFilter::parse(*text);
  }
  return options;
}

const char* to_string(LocalityLevel level) noexcept {
  switch (level) {
    case LocalityLevel::kNumaNode:
      return "NUMA node";
    case LocalityLevel::kPackage:
      return "package";
    case LocalityLevel::kMachine:
      return "machine";
  }
  return "unknown";
}

std::string RailMapping::explain(unsigned local_rank) const {
  const std::string where = level == LocalityLevel::kMachine
                                ? std::string("no NIC is nearer than the machine's")
                                : fmt::format("{} NIC{} local to its {} {}", candidates,
                                              candidates == 1 ? "" : "s", to_string(level), domain);
  return fmt::format(
      "local rank {}: rails {} (home {}); {}, shared by {} rank{}, this one #{}{}", local_rank,
      nic_names(rails), rails.empty() ? "none" : rails.front().name, where, sharing,
      sharing == 1 ? "" : "s", index,
      unbound ? "; the rank is not bound to CPUs, so it was placed by local rank" : "");
}

RailMapping map_rails(const MachineLayout& machine, const std::vector<RankPlacement>& ranks,
                      unsigned local_rank, const MappingOptions& options) {
  if (local_rank >= ranks.size()) {
    throw Error(
        fmt::format("rail mapping: local rank {} of only {} ranks", local_rank, ranks.size()));
  }
  if (machine.nics.empty()) {
    throw Error(
        fmt::format("rail mapping: {} has no usable network interface (up, not "
                    "loopback); set FI_OFI_MRAIL_ADDR to name the rails",
                    machine.origin));
  }
  // Interfaces on no PCI bus (bridges, veth, tunnels) are rails only when
  // the filter names them or there is nothing else: a docker0 or virbr0
  // has the same address on every host and would pair with itself.
  std::vector<Nic> nics;
  if (options.filter) {
    nics = options.filter->apply(machine.nics);
  } else {
    std::copy_if(machine.nics.begin(), machine.nics.end(), std::back_inserter(nics),
                 [](const Nic& nic) { return !nic.virtual_device; });
    if (nics.empty()) {
      nics = machine.nics;
    }
  }

  std::vector<Domain> domains;
  domains.reserve(ranks.size());
  RailMapping mapping;
  for (unsigned r = 0; r < ranks.size(); ++r) {
    bool unbound = false;
    domains.push_back(
        domain_of(machine, nics, effective_cpus(machine, ranks[r], r, ranks.size(), unbound)));
    if (r == local_rank) {
      mapping.unbound = unbound;
    }
  }
  const Domain& mine = domains[local_rank];
  mapping.level = mine.level;
  mapping.domain = fmt::format("{}", fmt::join(mine.groups, ","));
  mapping.candidates = mine.nics.size();
  // Ranks with the same candidates share them, whatever level found them
  // (a rank on a NUMA node without NICs shares the machine's with the
  // ranks local to them).
  const auto same_nics = [&](const Domain& other) { return other.nics == mine.nics; };
  mapping.sharing =
      static_cast<std::size_t>(std::count_if(domains.begin(), domains.end(), same_nics));
  mapping.index = static_cast<std::size_t>(
      std::count_if(domains.begin(), domains.begin() + local_rank, same_nics));

  // This rank's share of its candidates, then the rest of them, then every
  // other NIC, nearest level first.
  const std::vector<std::size_t> candidates = preference_order(nics, mine.nics);
  const std::size_t n = candidates.size();
  const std::size_t share = (n + mapping.sharing - 1) / mapping.sharing;
  const std::size_t offset = mapping.index * n / mapping.sharing;
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < n; ++j) {
    order.push_back(candidates[(offset + j) % n]);
  }
  std::vector<std::size_t> others;
  for (std::size_t i = 0; i < nics.size(); ++i) {
    if (std::find(order.begin(), order.end(), i) == order.end()) {
      others.push_back(i);
    }
  }
  others = preference_order(nics, others);
  order.insert(order.end(), others.begin(), others.end());

  std::size_t take = share;
  if (options.rails.kind == RailsChoice::Kind::kAll) {
    take = order.size();
  } else if (options.rails.kind == RailsChoice::Kind::kCount) {
    if (options.rails.count > order.size()) {
      throw ConfigError("RAILYARD_RAILS", std::to_string(options.rails.count),
                        fmt::format("expected at most {} rails: the NICs available are {}",
                                    order.size(), nic_names(nics)));
    }
    take = options.rails.count;
  }
  for (std::size_t j = 0; j < take; ++j) {
    mapping.rails.push_back(nics[order[j]]);
  }
  return mapping;
}

bool binding_changes_rails(const MachineLayout& machine, const MappingOptions& options) {
  std::optional<std::vector<std::string>> first;
  for (const auto& node : machine.numa_nodes) {
    std::vector<std::string> names;
    try {
      for (const auto& nic : map_rails(machine, {RankPlacement{node.cpus}}, 0, options).rails) {
        names.push_back(nic.name);
      }
    } catch (const Error&) {
      return true;  // the mapping itself fails: leave the warning to it
    }
    if (!first) {
      first = std::move(names);
    } else if (names != *first) {
      return true;
    }
  }
  return false;
}

}  // namespace railyard::topology
