// Entering an emulated host (scripts/netns-rails.sh) from a forked process.
#pragma once

#include <string>

namespace railyard::tools {

// Moves the calling process into the named network namespace (one of
// /var/run/netns); an empty name leaves it where it is. Throws
// std::runtime_error naming the namespace when it cannot (it needs root).
void enter_network_namespace(const std::string& name);

}  // namespace railyard::tools
