#include "railyard/transports/shm/region_prefault.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

#include "railyard/common/detail/log.h"
#include "railyard/common/detail/populate_pages.h"

namespace railyard::shm {
namespace {

struct Mapping {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
};

// This process's mapping of `path` from its first byte, as /proc/self/maps
// lists it ("start-end perms offset dev inode path").
std::optional<Mapping> mapping_of(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const std::string_view text = line;
    const auto slash = text.find('/');
    if (slash == std::string_view::npos || text.substr(slash) != path) {
      continue;
    }
    std::istringstream fields(line);
    std::string range;
    std::string perms;
    std::string offset;
    fields >> range >> perms >> offset;
    const auto dash = range.find('-');
    if (dash == std::string::npos || perms.size() < 2 || perms[1] != 'w' ||
        std::strtoull(offset.c_str(), nullptr, 16) != 0) {
      continue;
    }
    Mapping found;
    found.start = std::strtoull(range.substr(0, dash).c_str(), nullptr, 16);
    found.end = std::strtoull(range.substr(dash + 1).c_str(), nullptr, 16);
    if (found.end > found.start) {
      return found;
    }
  }
  return std::nullopt;
}

}  // namespace

std::size_t prefault_region(const std::string& path, std::size_t bytes) {
  if (bytes == 0 || path.empty()) {
    return 0;
  }
  const std::optional<Mapping> mapping = mapping_of(path);
  if (!mapping) {
    log::debug("shm region {}: not mapped by this process, nothing faulted in", path);
    return 0;
  }
  const std::size_t length = std::min<std::size_t>(bytes, mapping->end - mapping->start);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address read from /proc/self/maps
  if (!populate_pages(reinterpret_cast<const void*>(mapping->start), length)) {
    static std::once_flag told;
    const int error = errno;
    std::call_once(told, [&] {
      log::debug("shm region {}: faulting in {} bytes failed ({}); regions fault in as used", path,
                 length, std::generic_category().message(error));
    });
    return 0;
  }
  return length;
}

}  // namespace railyard::shm
