#include "railyard/comm/detail/shared_memory.h"

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/shm/stale_regions.h"

namespace railyard::comm::detail {

std::optional<mrail::HostRailOptions> host_rail_for(SharedMemoryMode mode, const HostPeers& host,
                                                    const std::string& host_id) {
  if (mode == SharedMemoryMode::kOff) {
    log::info(
        "shared memory: off (RAILYARD_SHM=off): the {} ranks of this host talk over the rails",
        host.local_size());
    return std::nullopt;
  }
  if (host.local_size() < 2) {
    log::info("shared memory: not needed, this rank is alone on its host");
    return std::nullopt;
  }
  if (host.local_size() - 1 > kMaxSharedMemoryPeers) {
    const std::string why =
        fmt::format("this host has {} ranks, and libfabric's shm maps at most {} peers",
                    host.local_size(), kMaxSharedMemoryPeers);
    if (mode == SharedMemoryMode::kOn) {
      throw ConfigError("RAILYARD_SHM", "on", fmt::format("expected auto or off, since {}", why));
    }
    log::warn("shared memory: off: {}; the ranks of this host talk over the rails", why);
    return std::nullopt;
  }
  shm::remove_stale_regions();
  mrail::HostRailOptions options;
  options.host = host_id;
  options.required = mode == SharedMemoryMode::kOn;
  log::info("shared memory: the {} ranks of host {} talk over libfabric's {} (RAILYARD_SHM={})",
            host.local_size(), host_id, options.provider, to_string(mode));
  return options;
}

}  // namespace railyard::comm::detail
