// Which pages of a file this process maps are in its page tables, for tests
// of faulting in shared-memory regions: /proc/self/maps finds the mapping,
// /proc/self/pagemap tells for each page whether it is present (bit 63,
// readable without privileges).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace railyard::testing {

struct FileMapping {
  std::uintptr_t start = 0;
  std::size_t length = 0;
};

// This process's mapping of `path` from its first byte, if any.
inline std::optional<FileMapping> mapping_of_file(const std::string& path) {
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
    if (std::strtoull(offset.c_str(), nullptr, 16) != 0) {
      continue;
    }
    const auto dash = range.find('-');
    const std::uintptr_t start = std::strtoull(range.substr(0, dash).c_str(), nullptr, 16);
    const std::uintptr_t end = std::strtoull(range.substr(dash + 1).c_str(), nullptr, 16);
    return FileMapping{start, end - start};
  }
  return std::nullopt;
}

// How many of the pages of [start, start + bytes) are present in this
// process's page tables.
inline std::size_t present_pages(std::uintptr_t start, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const int pagemap = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) {
    return 0;
  }
  std::size_t present = 0;
  for (std::uintptr_t address = start; address < start + bytes; address += page) {
    std::uint64_t entry = 0;
    const auto offset = static_cast<off_t>(address / page * sizeof entry);
    if (::pread(pagemap, &entry, sizeof entry, offset) == sizeof entry && (entry >> 63U) != 0) {
      ++present;
    }
  }
  ::close(pagemap);
  return present;
}

}  // namespace railyard::testing
