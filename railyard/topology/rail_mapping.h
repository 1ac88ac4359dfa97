// Which rails (NICs) a local rank uses, nearest first. A pure function of
// the machine, where every local rank runs, this rank's index and the
// options, so every rank computes the same answer for all of them.
//
// A rank's candidates are the NICs of the best locality to its CPUs: those
// of the NUMA nodes its CPUs are in, else of its packages, else of the
// whole machine; best
// bandwidth first, the first port of every card before second ports. The
// ranks with the same candidates (at whatever level) share them: each gets ceil(NICs / ranks)
// of them, starting at index * NICs / ranks, so home rails (the first, the
// one the `fixed` policy uses) spread evenly.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/topology/interface_filter.h"
#include "railyard/topology/machine_layout.h"

namespace railyard::topology {

// RAILYARD_RAILS: how many rails each rank uses.
struct RailsChoice {
  enum class Kind : std::uint8_t { kNearest, kAll, kCount };
  Kind kind = Kind::kNearest;
  std::size_t count = 0;  // kCount

  // "nearest", "all" or a count from 1; throws ConfigError naming `input`.
  [[nodiscard]] static RailsChoice parse(std::string_view text,
                                         std::string_view input = "RAILYARD_RAILS");
};

struct MappingOptions {
  RailsChoice rails;
  // Whether `rails` was asked for (RAILYARD_RAILS set), not the default.
  bool rails_given = false;
  std::optional<InterfaceFilter> filter;

  // RAILYARD_RAILS and RAILYARD_NET_IFACES.
  [[nodiscard]] static MappingOptions from_environment();
};

// Where a local rank runs: the CPUs it is bound to (empty: unbound).
struct RankPlacement {
  std::vector<unsigned> cpus;
};

enum class LocalityLevel : std::uint8_t { kNumaNode, kPackage, kMachine };
[[nodiscard]] const char* to_string(LocalityLevel level) noexcept;

struct RailMapping {
  std::vector<Nic> rails;  // rails.front() is the home rail
  LocalityLevel level = LocalityLevel::kMachine;
  std::string domain;          // OS indexes of the NUMA nodes or packages ("0,1")
  std::size_t candidates = 0;  // NICs at that level
  std::size_t sharing = 1;     // local ranks with the same candidates
  std::size_t index = 0;       // this rank's index among them
  bool unbound = false;        // placed by local rank: it is not bound
  // One line for the log: which NICs and why.
  [[nodiscard]] std::string explain(unsigned local_rank) const;
};

// The rails of local rank `local_rank` of `ranks.size()`. Throws
// ConfigError when the options rule out every NIC or ask for more rails than
// there are, and Error when the machine has no NIC at all.
[[nodiscard]] RailMapping map_rails(const MachineLayout& machine,
                                    const std::vector<RankPlacement>& ranks, unsigned local_rank,
                                    const MappingOptions& options = {});

// Whether binding a rank can change its rails: true when ranks bound to
// different NUMA nodes would get different NICs (NICs of several
// localities). False on a machine with one NUMA node, or whose NICs are all
// equally near every CPU, where an unbound rank loses nothing.
[[nodiscard]] bool binding_changes_rails(const MachineLayout& machine,
                                         const MappingOptions& options = {});

}  // namespace railyard::topology
