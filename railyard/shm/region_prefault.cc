#include "railyard/shm/region_prefault.h"

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

std::optional<FileMapping> mapping_of_file(const std::string& path) {
  std::ifstream maps("/proc/self/maps");  // "start-end perms offset dev inode path"
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
    const std::uintptr_t start = std::strtoull(range.substr(0, dash).c_str(), nullptr, 16);
    const std::uintptr_t end = std::strtoull(range.substr(dash + 1).c_str(), nullptr, 16);
    if (end > start) {
      return FileMapping{start, end - start};
    }
  }
  return std::nullopt;
}

std::size_t prefault_region(const std::string& path, std::size_t bytes) {
  if (bytes == 0 || path.empty()) {
    return 0;
  }
  const std::optional<FileMapping> mapping = mapping_of_file(path);
  if (!mapping) {
    log::debug("shm region {}: not mapped by this process, nothing faulted in", path);
    return 0;
  }
  const std::size_t length = std::min(bytes, mapping->length);
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
