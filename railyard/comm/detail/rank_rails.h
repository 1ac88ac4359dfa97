// The rails of one rank: FI_OFI_MRAIL_ADDR when set, else the topology's
// mapping fed with where every rank of this host really runs (their CPU
// sets, gathered through the bootstrap), not guessed from this rank's own
// binding as a lone endpoint must.
#pragma once

#include <optional>
#include <vector>

#include "railyard/comm/detail/rank_card.h"
#include "railyard/mrail/rail_choice.h"

namespace railyard::comm::detail {

// Whether this rank reads its host's machine for its card: when the rails
// will come from the topology (FI_OFI_MRAIL_ADDR unset), and the launcher
// numbered it local rank 0 or gave no local rank. A wrong or missing local
// rank costs time only: a host whose cards carry no layout has each rank
// read its own.
[[nodiscard]] bool reads_host_machine_for_card(std::optional<unsigned> launcher_local_rank);

// The layout `host`'s ranks map their rails on: the one in the card of the
// host's lowest rank that carries one (setting `from_rank`), else read here
// (`from_rank` -1). Throws as read_host_machine.
[[nodiscard]] HostMachine host_machine_for(const std::vector<RankCard>& cards,
                                           const HostPeers& host, int& from_rank);

// The host's layout comes from host_machine_for. Throws ConfigError for a
// bad variable. When the topology cannot be read or has no usable NIC,
// warns and falls back to one rail on the provider's default interface, as
// the multi-rail endpoint does.
[[nodiscard]] mrail::RailChoice rails_for_rank(const std::vector<RankCard>& cards,
                                               const HostPeers& host);

}  // namespace railyard::comm::detail
