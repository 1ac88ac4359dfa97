// Owner of an hwloc topology with its I/O devices (PCI devices, network and
// OpenFabrics OS devices), loaded from this machine or from an XML export
// of another one.
#pragma once

#include <string>
#include <utility>

// hwloc's handle type (hwloc_topology_t points to it), declared so that
// railyard's public headers need not include hwloc's.
struct hwloc_topology;

namespace railyard::topology {

class HwlocTopology {
 public:
  // This machine as the kernel shows it.
  [[nodiscard]] static HwlocTopology load_this_machine();
  // The machine an hwloc XML export describes; throws ConfigError naming
  // `input` (the variable or flag the path came from) and the path when the
  // file is missing or hwloc cannot parse it.
  [[nodiscard]] static HwlocTopology load_xml(const std::string& path,
                                              const std::string& input = "topology file");
  // RAILYARD_TOPOLOGY's XML file if set, else this machine.
  [[nodiscard]] static HwlocTopology from_environment();

  HwlocTopology(HwlocTopology&& other) noexcept;
  HwlocTopology& operator=(HwlocTopology&& other) noexcept;
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  ~HwlocTopology();

  [[nodiscard]] hwloc_topology* get() const noexcept { return topology_; }
  // Whether it describes the machine this process runs on (so interface
  // states, addresses and CPU bindings can be read from the kernel).
  [[nodiscard]] bool is_this_machine() const noexcept { return this_machine_; }
  // "this machine" or the XML path, for messages.
  [[nodiscard]] const std::string& origin() const noexcept { return origin_; }

 private:
  HwlocTopology(hwloc_topology* topology, bool this_machine, std::string origin) noexcept
      : topology_(topology), this_machine_(this_machine), origin_(std::move(origin)) {}

  hwloc_topology* topology_ = nullptr;
  bool this_machine_ = false;
  std::string origin_;
};

}  // namespace railyard::topology
