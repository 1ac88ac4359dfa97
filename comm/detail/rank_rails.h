// The rails of one rank: FI_OFI_MRAIL_ADDR when set, else the topology's
// mapping fed with where every rank of this host really runs (their CPU
// sets, gathered through the bootstrap), not guessed from this rank's own
// binding as a lone endpoint must.
#pragma once

#include <vector>

#include "railyard/comm/detail/rank_card.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/transports/mrail/rail_choice.h"

namespace railyard::comm::detail {

// `this_machine` is the topology the rank already loaded for its card
// (hwloc reads PCI configuration space, slow in a virtual machine, so a
// rank loads it once); RAILYARD_TOPOLOGY's XML file replaces it when set.
// Throws ConfigError for a bad variable. When the topology has no usable
// NIC, warns and falls back to one rail on the provider's default
// interface, as the multi-rail endpoint does.
[[nodiscard]] mrail::RailChoice rails_for_rank(const std::vector<RankCard>& cards,
                                               const HostPeers& host,
                                               const topology::HwlocTopology& this_machine);

}  // namespace railyard::comm::detail
