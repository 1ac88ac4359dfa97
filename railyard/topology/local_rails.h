// The rails of this process: the machine's topology (RAILYARD_TOPOLOGY or
// this machine), this process's local rank and CPU binding, and the
// mapping options from the environment, put through map_rails. Used by the
// multi-rail endpoint when FI_OFI_MRAIL_ADDR is unset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/topology/rail_mapping.h"

namespace railyard::topology {

struct LocalRails {
  RailMapping mapping;
  // How the other local ranks' placements were inferred, for the log.
  std::string placement;
};

// How a launcher binds ranks, to model the placements of a node's ranks.
enum class LauncherBinding : std::uint8_t {
  kNone,  // unbound
  kCore,  // --map-by core --bind-to core: equal blocks of CPUs, NUMA node after node
  kNuma,  // --map-by numa --bind-to numa: round robin over NUMA nodes
};

// Throws ConfigError naming `input` for anything but none, core or numa.
[[nodiscard]] LauncherBinding parse_launcher_binding(std::string_view text, std::string_view input);

// The placements of `local_size` ranks under `binding`.
[[nodiscard]] std::vector<RankPlacement> launcher_placements(const MachineLayout& machine,
                                                             unsigned local_size,
                                                             LauncherBinding binding);

// Where the other local ranks run, as this one can tell from its own
// binding: the block layout of --map-by core when its CPUs are its block,
// one NUMA node per rank round robin when they are within node
// local_rank % nodes, else unknown (treated as unbound). `placement` says
// which.
[[nodiscard]] std::vector<RankPlacement> infer_placements(const MachineLayout& machine,
                                                          const std::vector<unsigned>& own_cpus,
                                                          unsigned local_rank, unsigned local_size,
                                                          std::string& placement);

// Throws ConfigError for bad RAILYARD_* variables and Error when the
// topology cannot be read or holds no usable NIC. Logs the mapping once at
// info level.
[[nodiscard]] LocalRails rails_for_this_process();

}  // namespace railyard::topology
