// The parts of a machine the rail mapping looks at, as plain data: its NUMA
// nodes and packages with their CPUs, and its NICs. Extracted once from
// hwloc, so the mapping is a pure function tests can feed directly.
#pragma once

#include <string>
#include <vector>

#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/nic.h"
#include "railyard/topology/nic_discovery.h"

namespace railyard::topology {

struct CpuGroup {
  unsigned os_index = 0;
  std::vector<unsigned> cpus;  // OS indexes of its PUs, ascending
};

struct MachineLayout {
  std::vector<CpuGroup> numa_nodes;  // by OS index
  std::vector<CpuGroup> packages;    // by OS index
  std::vector<unsigned> cpus;        // every PU, ascending
  std::vector<Nic> nics;
  std::string origin;  // "this machine" or the XML file
};

[[nodiscard]] MachineLayout describe_machine(const HwlocTopology& topology,
                                             const DiscoveryOptions& options = {});

// The CPUs this process is bound to (hwloc_get_cpubind), ascending; every
// CPU when it is not bound.
[[nodiscard]] std::vector<unsigned> current_binding(const HwlocTopology& topology);

// "0-5,12-17" for messages.
[[nodiscard]] std::string cpu_list_text(const std::vector<unsigned>& cpus);

}  // namespace railyard::topology
