#include "railyard/topology/machine_layout.h"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include <fmt/format.h>

#include "railyard/common/detail/errno_text.h"
#include "railyard/common/error.h"

namespace railyard::topology {
namespace {

std::vector<unsigned> cpus_of(hwloc_const_bitmap_t set) {
  std::vector<unsigned> out;
  if (set == nullptr || hwloc_bitmap_weight(set) < 0) {
    return out;
  }
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) {
    out.push_back(static_cast<unsigned>(i));
  }
  return out;
}

std::vector<CpuGroup> groups_of(hwloc_topology_t topology, hwloc_obj_type_t type) {
  std::vector<CpuGroup> out;
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(topology, type, nullptr); obj != nullptr;
       obj = hwloc_get_next_obj_by_type(topology, type, obj)) {
    out.push_back(CpuGroup{obj->os_index, cpus_of(obj->cpuset)});
  }
  std::sort(out.begin(), out.end(),
            [](const CpuGroup& a, const CpuGroup& b) { return a.os_index < b.os_index; });
  return out;
}

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const noexcept { hwloc_bitmap_free(bitmap); }
};

}  // namespace

MachineLayout describe_machine(const HwlocTopology& topology, const DiscoveryOptions& options) {
  MachineLayout layout;
  layout.numa_nodes = groups_of(topology.get(), HWLOC_OBJ_NUMANODE);
  layout.packages = groups_of(topology.get(), HWLOC_OBJ_PACKAGE);
  layout.cpus = cpus_of(hwloc_topology_get_topology_cpuset(topology.get()));
  layout.nics = discover_nics(topology, options);
  layout.origin = topology.origin();
  return layout;
}

std::vector<unsigned> current_binding(const HwlocTopology& topology) {
  const std::unique_ptr<hwloc_bitmap_s, BitmapDeleter> set(hwloc_bitmap_alloc());
  if (!set) {
    throw Error("hwloc_bitmap_alloc", -ENOMEM, "hwloc_bitmap_alloc failed: out of memory");
  }
  if (hwloc_get_cpubind(topology.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    throw Error("hwloc_get_cpubind", -errno,
                fmt::format("reading this process's CPU binding failed: {}", errno_text(errno)));
  }
  return cpus_of(set.get());
}

std::string cpu_list_text(const std::vector<unsigned>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
      ++j;
    }
    out += out.empty() ? "" : ",";
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

}  // namespace railyard::topology
