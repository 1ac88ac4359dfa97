#include "network_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <stdexcept>

namespace railyard::tools {

void enter_network_namespace(const std::string& name) {
  if (name.empty()) {
    return;
  }
  const std::string path = "/var/run/netns/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const bool entered = fd >= 0 && ::setns(fd, CLONE_NEWNET) == 0;
  if (fd >= 0) {
    ::close(fd);
  }
  if (!entered) {
    throw std::runtime_error("cannot enter network namespace '" + name + "' (needs root)");
  }
}

}  // namespace railyard::tools
