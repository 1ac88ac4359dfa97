// A network interface card as railyard sees it: a netdev (or an OpenFabrics
// device without one) and where it sits relative to the CPUs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railyard::topology {

struct Nic {
  // The netdev ("eth0", "ib0"); an OpenFabrics device's own name when it
  // has no netdev.
  std::string name;
  // The OpenFabrics (verbs) device the port belongs to ("mlx4_0"), if any.
  std::string openfabrics;
  // PCI function ("0000:02:00.1") and device ("0000:02:00": the ports of
  // one card share it). Empty for virtual interfaces (veth, bridges).
  std::string pci_bus_id;
  std::string pci_device;
  // OS indexes of the NUMA nodes and packages local to the NIC: those of
  // the smallest CPU-side object above it. Empty for virtual interfaces.
  std::vector<unsigned> numa_nodes;
  std::vector<unsigned> packages;
  // Link speed in Mbit/s when the kernel reports it (this machine only).
  std::optional<std::uint64_t> speed_mbps;
  // IPv4 and IPv6 addresses (this machine only).
  std::vector<std::string> addresses;
  bool up = true;  // a topology loaded from XML says nothing: assumed up
  bool loopback = false;
  bool virtual_device = false;  // not on a PCI bus
  bool has_netdev = true;       // false for an OpenFabrics device without one
};

}  // namespace railyard::topology
