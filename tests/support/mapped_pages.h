// Which pages of this process's memory are in its page tables, for tests of
// faulting memory in: /proc/self/pagemap tells for each page whether it is
// present (bit 63, readable without privileges); shm::mapping_of_file finds
// a file's mapping.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "railyard/shm/region_prefault.h"

namespace railyard::testing {

using shm::mapping_of_file;  // finds the mapping whose pages are counted

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
