// Which host a rank runs on, as the Communicator tells local peers from
// remote ones. The hostname alone is not enough: emulated hosts (network
// namespaces) share a hostname, a PID space and /dev/shm but not a network,
// and taking them for one host would send their traffic through shared
// memory instead of the rails. So the identity is the hostname plus the
// network namespace's inode. RAILYARD_HOST_ID overrides it.
#pragma once

#include <string>

namespace railyard::comm {

// RAILYARD_HOST_ID when set (1 to 255 bytes), else "<hostname>/netns:<inode>".
// Throws ConfigError for an empty or over-long RAILYARD_HOST_ID, Error
// naming the call when the hostname or namespace cannot be read.
[[nodiscard]] std::string host_identity();

}  // namespace railyard::comm
