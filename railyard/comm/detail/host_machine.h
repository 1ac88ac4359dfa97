// A host's machine layout (NUMA nodes, packages, CPUs, NICs) as one of its
// ranks read it, carried in that rank's card so the other ranks of the host
// map their rails without loading a topology themselves. A hwloc load costs
// each process tens of milliseconds of CPU (PCI configuration space, sysfs,
// hwloc's plugins), and a host's ranks all start at once: one load per host
// instead of one per rank. Wire layout in docs/wire-formats.md, "Rank card".
#pragma once

#include <optional>
#include <string>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/topology/machine_layout.h"

namespace railyard::comm::detail {

struct HostMachine {
  topology::MachineLayout layout;
  // False when the layout came from RAILYARD_TOPOLOGY's XML file: its CPU
  // sets are not this machine's, so ranks' bindings mean nothing there.
  bool this_machine = true;
};

// Reads this host's machine: RAILYARD_TOPOLOGY's file when set, else hwloc
// on this machine. Throws ConfigError for a bad RAILYARD_TOPOLOGY, Error
// naming the hwloc call that failed.
[[nodiscard]] HostMachine read_host_machine();

void encode(ByteWriter& writer, const HostMachine& machine);
// Reads what encode wrote; nullopt with `error` saying what is wrong when
// the bytes are not a machine layout (a count past the bytes left, ...).
[[nodiscard]] std::optional<HostMachine> decode_host_machine(ByteReader& reader,
                                                             std::string& error);

}  // namespace railyard::comm::detail
