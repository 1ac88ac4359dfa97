// Whether this rank reaches the ranks of its host over shared memory: the
// RAILYARD_SHM decision, made once per world and logged once.
#pragma once

#include <optional>
#include <string>

#include "railyard/comm/communicator_options.h"
#include "railyard/comm/detail/rank_card.h"
#include "railyard/mrail/options.h"

namespace railyard::comm::detail {

// libfabric's shm provider maps at most this many peers per endpoint.
inline constexpr unsigned kMaxSharedMemoryPeers = 256;

// The host rail the endpoint should open, or none: with `off`, when this
// rank is alone on its host, or (auto) when the host has more ranks than
// shm can map, which `on` makes an error. Before a host rail opens,
// regions left in /dev/shm by dead processes are removed.
[[nodiscard]] std::optional<mrail::HostRailOptions> host_rail_for(SharedMemoryMode mode,
                                                                  const HostPeers& host,
                                                                  const std::string& host_id);

}  // namespace railyard::comm::detail
