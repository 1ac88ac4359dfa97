// The CPUs this process may run on, read from the kernel without loading a
// topology: a rank's card needs only that, and a hwloc load (every PCI
// device's configuration space, every sysfs CPU file, hwloc's plugins) is
// the costliest part of a rank's start-up that railyard controls, so only
// one rank per host pays it (docs/architecture.md, "Bootstrap").
#pragma once

#include <vector>

namespace railyard::topology {

// OS indexes of the CPUs in this thread's affinity mask (sched_getaffinity),
// ascending: the same numbers hwloc gives its PUs on Linux. Throws Error
// naming the call when the kernel refuses every mask size up to 2^20 CPUs.
[[nodiscard]] std::vector<unsigned> process_binding();

}  // namespace railyard::topology
