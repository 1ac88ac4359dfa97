// The rails of one rank: FI_OFI_MRAIL_ADDR when set, else the topology's
// mapping fed with where every rank of this host really runs (their CPU
// sets, gathered through the bootstrap), not guessed from this rank's own
// binding as a lone endpoint must.
#pragma once

#include <vector>

#include "railyard/comm/detail/rank_card.h"
#include "railyard/transports/mrail/rail_choice.h"

namespace railyard::comm::detail {

// Throws ConfigError for a bad variable. When the topology cannot be read
// or has no usable NIC, warns and falls back to one rail on the provider's
// default interface, as the multi-rail endpoint does.
[[nodiscard]] mrail::RailChoice rails_for_rank(const std::vector<RankCard>& cards,
                                               const HostPeers& host);

}  // namespace railyard::comm::detail
