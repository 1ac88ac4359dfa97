// The shared-memory regions (/dev/shm) a process made, for tests of their
// cleanup.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <system_error>

#include "railyard/shm/stale_regions.h"

namespace railyard::testing {

inline std::size_t shm_regions_of(pid_t pid) {
  std::size_t count = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", error)) {
    const auto owner = shm::owner_of_region(entry.path().filename().string());
    count += owner && owner->pid == pid ? 1 : 0;
  }
  return count;
}

}  // namespace railyard::testing
