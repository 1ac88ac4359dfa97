#include "railyard/comm/host_identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/errno_text.h"
#include "railyard/common/error.h"

namespace railyard::comm {

std::string host_identity() {
  constexpr std::size_t kMaxLength = 255;
  if (const auto text = env::get("RAILYARD_HOST_ID")) {
    if (text->empty() || text->size() > kMaxLength) {
      throw ConfigError("RAILYARD_HOST_ID", text->substr(0, 32),
                        "expected 1 to 255 bytes naming this host");
    }
    return *text;
  }
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) {
    throw Error("gethostname", errno, "gethostname failed: " + errno_text(errno));
  }
  struct stat namespace_file {};
  if (::stat("/proc/self/ns/net", &namespace_file) != 0) {
    throw Error("stat", errno, "stat(/proc/self/ns/net) failed: " + errno_text(errno));
  }
  return fmt::format("{}/netns:{}", name.data(), namespace_file.st_ino);
}

}  // namespace railyard::comm
