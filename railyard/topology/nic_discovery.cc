#include "railyard/topology/nic_discovery.h"

#include <hwloc.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "railyard/common/detail/network_interfaces.h"

namespace railyard::topology {
namespace {

std::vector<unsigned> indexes_of(hwloc_const_bitmap_t set) {
  std::vector<unsigned> out;
  if (set == nullptr || hwloc_bitmap_weight(set) < 0) {
    return out;  // empty, or infinite (no locality)
  }
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) {
    out.push_back(static_cast<unsigned>(i));
  }
  return out;
}

hwloc_obj_t pci_parent(hwloc_obj_t osdev) {
  for (hwloc_obj_t parent = osdev->parent; parent != nullptr; parent = parent->parent) {
    if (parent->type == HWLOC_OBJ_PCI_DEVICE) {
      return parent;
    }
  }
  return nullptr;
}

// Packages whose CPUs meet those of `local` (the NIC's CPU-side ancestor).
std::vector<unsigned> packages_near(hwloc_topology_t topology, hwloc_obj_t local) {
  std::vector<unsigned> out;
  for (hwloc_obj_t package = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PACKAGE, nullptr);
       package != nullptr;
       package = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PACKAGE, package)) {
    if (hwloc_bitmap_intersects(package->cpuset, local->cpuset) != 0) {
      out.push_back(package->os_index);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A one-line file under /sys/class/net/<name>/, if readable.
std::optional<std::string> sys_net(const std::string& name, const char* file) {
  std::ifstream in(fmt::format("/sys/class/net/{}/{}", name, file));
  std::string line;
  if (!in || !std::getline(in, line)) {
    return std::nullopt;
  }
  return line;
}

// What the kernel says of an interface of this machine.
void read_kernel_state(Nic& nic, const std::vector<InterfaceAddress>& addresses) {
  bool listed = false;
  for (const auto& entry : addresses) {
    if (entry.interface == nic.name) {
      listed = true;
      nic.addresses.push_back(entry.address);
      nic.up = entry.up;
      nic.loopback = entry.loopback;
    }
  }
  if (!listed) {
    // No address: the interface may exist, but nothing can reach it.
    const auto state = sys_net(nic.name, "operstate");
    nic.up = state && (*state == "up" || *state == "unknown");
  }
  if (const auto speed = sys_net(nic.name, "speed")) {
    // Virtual and down interfaces report -1 or nothing.
    if (!speed->empty() && speed->front() != '-') {
      try {
        nic.speed_mbps = std::stoull(*speed);
      } catch (const std::exception&) {
        nic.speed_mbps.reset();
      }
    }
  }
}

}  // namespace

std::string nic_names(const std::vector<Nic>& nics) {
  std::vector<std::string> names;
  names.reserve(nics.size());
  for (const auto& nic : nics) {
    names.push_back(nic.name);
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

std::vector<Nic> discover_nics(const HwlocTopology& topology, const DiscoveryOptions& options) {
  hwloc_topology_t topo = topology.get();
  std::vector<Nic> nics;
  // OpenFabrics devices by the PCI function they sit on, to pair with the
  // netdevs of the same function.
  std::map<hwloc_obj_t, std::string> openfabrics_at;
  std::vector<hwloc_obj_t> netdevs;
  std::vector<hwloc_obj_t> openfabrics;
  for (hwloc_obj_t osdev = hwloc_get_next_osdev(topo, nullptr); osdev != nullptr;
       osdev = hwloc_get_next_osdev(topo, osdev)) {
    if (osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) {
      netdevs.push_back(osdev);
    } else if (osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
      openfabrics.push_back(osdev);
      if (hwloc_obj_t pci = pci_parent(osdev); pci != nullptr) {
        openfabrics_at.emplace(pci, osdev->name);
      }
    }
  }
  const auto describe = [&](hwloc_obj_t osdev) {
    Nic nic;
    nic.name = osdev->name;
    if (hwloc_obj_t pci = pci_parent(osdev); pci != nullptr) {
      const auto& a = pci->attr->pcidev;
      nic.pci_device = fmt::format("{:04x}:{:02x}:{:02x}", a.domain, a.bus, a.dev);
      nic.pci_bus_id = fmt::format("{}.{:x}", nic.pci_device, a.func);
      if (const auto it = openfabrics_at.find(pci); it != openfabrics_at.end()) {
        nic.openfabrics = it->second;
      }
    } else {
      nic.virtual_device = true;
    }
    if (hwloc_obj_t local = hwloc_get_non_io_ancestor_obj(topo, osdev); local != nullptr) {
      nic.numa_nodes = indexes_of(local->nodeset);
      nic.packages = packages_near(topo, local);
    }
    return nic;
  };
  nics.reserve(netdevs.size() + openfabrics.size());
  for (hwloc_obj_t osdev : netdevs) {
    nics.push_back(describe(osdev));
  }
  for (hwloc_obj_t osdev : openfabrics) {
    hwloc_obj_t pci = pci_parent(osdev);
    const bool paired = std::any_of(netdevs.begin(), netdevs.end(), [&](hwloc_obj_t netdev) {
      return pci != nullptr && pci_parent(netdev) == pci;
    });
    if (!paired) {
      Nic nic = describe(osdev);
      nic.openfabrics = osdev->name;
      nic.has_netdev = false;
      nics.push_back(std::move(nic));
    }
  }
  if (topology.is_this_machine()) {
    const auto addresses = list_interface_addresses();
    for (auto& nic : nics) {
      if (nic.has_netdev) {
        read_kernel_state(nic, addresses);
      }
    }
    // Interfaces hwloc does not list: not on a PCI bus.
    for (const auto& entry : addresses) {
      const bool known = std::any_of(nics.begin(), nics.end(),
                                     [&](const Nic& nic) { return nic.name == entry.interface; });
      if (!known) {
        Nic nic;
        nic.name = entry.interface;
        nic.virtual_device = true;
        read_kernel_state(nic, addresses);
        nics.push_back(std::move(nic));
      }
    }
  }
  std::erase_if(nics, [&](const Nic& nic) {
    return (nic.loopback && !options.include_loopback) || (!nic.up && !options.include_down);
  });
  std::stable_sort(nics.begin(), nics.end(), [](const Nic& a, const Nic& b) {
    if (a.virtual_device != b.virtual_device) {
      return !a.virtual_device;
    }
    if (a.pci_bus_id != b.pci_bus_id) {
      return a.pci_bus_id < b.pci_bus_id;
    }
    return a.name < b.name;
  });
  return nics;
}

}  // namespace railyard::topology
