#include "machine_report.h"

#include <fmt/format.h>

#include "railyard/common/detail/local_rank.h"
#include "railyard/common/error.h"
#include "railyard/mrail/policy_table.h"
#include "railyard/mrail/rail_addresses.h"
#include "railyard/rail/bind_address.h"
#include "railyard/rail/provider_selection.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/local_rails.h"
#include "railyard/topology/machine_layout.h"
#include "railyard/topology/rail_mapping.h"

namespace railyard::info {
namespace {

using nlohmann::json;

json nic_json(const topology::Nic& nic) {
  return json{{"name", nic.name},
              {"openfabrics", nic.openfabrics},
              {"pci", nic.pci_bus_id},
              {"numa_nodes", nic.numa_nodes},
              {"packages", nic.packages},
              {"speed_mbps", nic.speed_mbps ? json(*nic.speed_mbps) : json(nullptr)},
              {"addresses", nic.addresses},
              {"up", nic.up},
              {"virtual", nic.virtual_device}};
}

json providers_json() {
  json out = json::array();
  for (const auto& name : rail::list_rdm_providers()) {
    json entry{{"name", name}};
    try {
      (void)rail::select_rail_info(name, nullptr);
      entry["usable"] = true;
    } catch (const Error& e) {
      entry["usable"] = false;
      entry["why"] = e.what();
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json rail_addresses_json() {
  json out{{"variable", "FI_OFI_MRAIL_ADDR"}};
  try {
    json rails = json::array();
    for (const auto& spec : mrail::rail_addresses_from_environment()) {
      if (spec.empty()) {
        out["source"] = "unset: the topology's mapping below";
        return out;
      }
      const rail::BindAddress address = rail::resolve_bind_address("FI_OFI_MRAIL_ADDR", spec);
      rails.push_back(json{{"entry", spec},
                           {"address", address.host},
                           {"interface", address.interface},
                           {"network", address.network}});
    }
    out["source"] = "set";
    out["rails"] = rails;
  } catch (const Error& e) {
    out["error"] = e.what();
  }
  return out;
}

json policy_json() {
  json out{{"variable", "FI_OFI_MRAIL_CONFIG"}};
  try {
    const auto table = mrail::PolicyTable::from_environment();
    out["table"] = table.describe();
  } catch (const Error& e) {
    out["error"] = e.what();
  }
  return out;
}

}  // namespace

json gather_report(const ReportOptions& options) {
  const topology::HwlocTopology topology =
      options.topology.empty() ? topology::HwlocTopology::from_environment()
                               : topology::HwlocTopology::load_xml(options.topology, "--topology");
  topology::DiscoveryOptions discovery;
  discovery.include_loopback = options.include_loopback;
  discovery.include_down = options.include_down;
  const topology::MachineLayout machine = topology::describe_machine(topology, discovery);

  json report;
  report["topology"] = machine.origin;
  report["cpus"] = machine.cpus.size();
  json nodes = json::array();
  for (const auto& node : machine.numa_nodes) {
    json nics = json::array();
    for (const auto& nic : machine.nics) {
      if (nic.numa_nodes == std::vector<unsigned>{node.os_index}) {
        nics.push_back(nic.name);
      }
    }
    nodes.push_back(json{
        {"os_index", node.os_index}, {"cpus", topology::cpu_list_text(node.cpus)}, {"nics", nics}});
  }
  report["numa_nodes"] = nodes;
  report["packages"] = machine.packages.size();
  json nics = json::array();
  for (const auto& nic : machine.nics) {
    nics.push_back(nic_json(nic));
  }
  report["nics"] = nics;
  report["providers"] = providers_json();
  report["rail_addresses"] = rail_addresses_json();
  report["policies"] = policy_json();

  json mapping{{"local_size", options.local_size}};
  try {
    const topology::MappingOptions mapping_options = topology::MappingOptions::from_environment();
    const auto binding = topology::parse_launcher_binding(options.binding, "--binding");
    const auto ranks = topology::launcher_placements(machine, options.local_size, binding);
    mapping["binding"] = options.binding;
    json per_rank = json::array();
    for (unsigned r = 0; r < options.local_size; ++r) {
      const auto result = topology::map_rails(machine, ranks, r, mapping_options);
      json rails = json::array();
      for (const auto& nic : result.rails) {
        rails.push_back(nic.name);
      }
      per_rank.push_back(json{{"local_rank", r},
                              {"rails", rails},
                              {"level", topology::to_string(result.level)},
                              {"domain", result.domain},
                              {"sharing", result.sharing}});
    }
    mapping["ranks"] = per_rank;
  } catch (const Error& e) {
    mapping["error"] = e.what();
  }
  report["mapping"] = mapping;

  // The settings shown above that a job would refuse, for the exit status.
  json invalid = json::array();
  if (report["rail_addresses"].contains("error")) {
    invalid.push_back("FI_OFI_MRAIL_ADDR");
  }
  if (report["policies"].contains("error")) {
    invalid.push_back("FI_OFI_MRAIL_CONFIG");
  }
  if (mapping.contains("error")) {
    invalid.push_back("the rail mapping (RAILYARD_RAILS, RAILYARD_NET_IFACES, --binding)");
  }
  report["invalid_settings"] = invalid;
  return report;
}

std::vector<std::string> invalid_settings(const json& report) {
  return report["invalid_settings"].get<std::vector<std::string>>();
}

std::string render_text(const json& report) {
  std::string out;
  out += fmt::format("topology: {} ({} CPUs, {} packages, {} NUMA nodes)\n",
                     report["topology"].get<std::string>(), report["cpus"].get<std::size_t>(),
                     report["packages"].get<std::size_t>(), report["numa_nodes"].size());
  out += "\nNUMA nodes\n";
  for (const auto& node : report["numa_nodes"]) {
    std::string nics;
    for (const auto& nic : node["nics"]) {
      nics += nics.empty() ? "" : ", ";
      nics += nic.get<std::string>();
    }
    out += fmt::format("  node {:<3} cpus {:<24} nics {}\n", node["os_index"].get<unsigned>(),
                       node["cpus"].get<std::string>(), nics.empty() ? "-" : nics);
  }
  out += "\nNICs\n";
  out += fmt::format("  {:<10} {:<14} {:<10} {:<8} {:<12} {:<8} {}\n", "name", "pci", "verbs",
                     "numa", "packages", "speed", "addresses");
  for (const auto& nic : report["nics"]) {
    std::string addresses;
    for (const auto& a : nic["addresses"]) {
      addresses += addresses.empty() ? "" : ", ";
      addresses += a.get<std::string>();
    }
    const auto numa = nic["numa_nodes"].get<std::vector<unsigned>>();
    const auto packages = nic["packages"].get<std::vector<unsigned>>();
    out += fmt::format(
        "  {:<10} {:<14} {:<10} {:<8} {:<12} {:<8} {}\n", nic["name"].get<std::string>(),
        nic["pci"].get<std::string>().empty() ? "virtual" : nic["pci"].get<std::string>(),
        nic["openfabrics"].get<std::string>().empty() ? "-" : nic["openfabrics"].get<std::string>(),
        numa.empty() ? "-" : fmt::format("{}", fmt::join(numa, ",")),
        packages.empty() ? "-" : fmt::format("{}", fmt::join(packages, ",")),
        nic["speed_mbps"].is_null() ? "-"
                                    : fmt::format("{}M", nic["speed_mbps"].get<std::uint64_t>()),
        addresses.empty() ? "-" : addresses);
  }
  if (report["nics"].empty()) {
    out += "  none\n";
  }
  out += "\nlibfabric providers with FI_EP_RDM endpoints\n";
  for (const auto& provider : report["providers"]) {
    out += fmt::format("  {:<16} {}\n", provider["name"].get<std::string>(),
                       provider["usable"].get<bool>()
                           ? std::string("usable for rails")
                           : "not usable: " + provider["why"].get<std::string>());
  }
  const auto& addresses = report["rail_addresses"];
  out += "\nFI_OFI_MRAIL_ADDR: ";
  if (addresses.contains("error")) {
    out += "error: " + addresses["error"].get<std::string>() + "\n";
  } else if (!addresses.contains("rails")) {
    out += addresses["source"].get<std::string>() + "\n";
  } else {
    out += "\n";
    for (const auto& rail : addresses["rails"]) {
      out += fmt::format("  {:<24} -> {} on {} ({})\n", rail["entry"].get<std::string>(),
                         rail["address"].get<std::string>(), rail["interface"].get<std::string>(),
                         rail["network"].get<std::string>());
    }
  }
  const auto& policies = report["policies"];
  out += fmt::format("FI_OFI_MRAIL_CONFIG: {}\n",
                     policies.contains("error") ? "error: " + policies["error"].get<std::string>()
                                                : policies["table"].get<std::string>());
  const auto& mapping = report["mapping"];
  out += fmt::format("\nrails for {} local rank{} (binding: {})\n",
                     mapping["local_size"].get<unsigned>(),
                     mapping["local_size"].get<unsigned>() == 1 ? "" : "s",
                     mapping.contains("binding") ? mapping["binding"].get<std::string>() : "-");
  if (mapping.contains("error")) {
    out += "  error: " + mapping["error"].get<std::string>() + "\n";
    return out;
  }
  for (const auto& rank : mapping["ranks"]) {
    std::string rails;
    for (const auto& rail : rank["rails"]) {
      rails += rails.empty() ? "" : ", ";
      rails += rail.get<std::string>();
    }
    const std::string level = rank["level"].get<std::string>();
    const std::string where =
        level == "machine" ? level : level + " " + rank["domain"].get<std::string>();
    out += fmt::format("  rank {:<3} {:<36} nearest: {}, shared by {}\n",
                       rank["local_rank"].get<unsigned>(), rails, where,
                       rank["sharing"].get<std::size_t>());
  }
  return out;
}

}  // namespace railyard::info
