// Finding the NICs of a topology: hwloc's network and OpenFabrics OS
// devices with their PCI locality, and, on this machine, the kernel's view
// of each interface (state, addresses, speed) plus interfaces hwloc does not
// see because they are not on a PCI bus (veth, bridges, loopback).
#pragma once

#include <string>
#include <vector>

#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/nic.h"

namespace railyard::topology {

struct DiscoveryOptions {
  bool include_loopback = false;
  bool include_down = false;
};

// "eth0, eth1" (or "none"), for messages.
[[nodiscard]] std::string nic_names(const std::vector<Nic>& nics);

// In a stable order: PCI NICs by bus id (ports of a card together), then
// virtual interfaces by name.
[[nodiscard]] std::vector<Nic> discover_nics(const HwlocTopology& topology,
                                             const DiscoveryOptions& options = {});

}  // namespace railyard::topology
