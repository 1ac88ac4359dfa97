// Shared-memory regions that outlived their process.
//
// Each endpoint of libfabric's shm provider is a file in /dev/shm, named
// "<pid>:<uid>:<index>" when the endpoint takes the provider's default
// address ("fi_shm://<pid>", prefix stripped, uid and endpoint index
// appended). The provider removes it when the endpoint closes and from its
// handlers of fatal signals; a process killed outright (SIGKILL, the OOM
// killer) leaves it behind, holding /dev/shm space until reboot. Railyard's
// own segments (shared_segment.h) carry the same fields after a prefix.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>

#include <sys/types.h>

namespace railyard::shm {

// The process that made a region, from its file name; none when the name is
// neither an shm provider's default one nor a railyard segment's.
struct RegionOwner {
  pid_t pid = 0;
  uid_t uid = 0;
};
[[nodiscard]] std::optional<RegionOwner> owner_of_region(std::string_view file_name);

// Removes the regions in `directory` that this user made, whose process no
// longer exists in this PID namespace, and logs each one. Others' regions
// and live processes' are kept. Returns how many were removed. Errors
// (an unreadable directory) are logged, never thrown: a stale region costs
// space, not correctness.
std::size_t remove_stale_regions(const std::filesystem::path& directory = "/dev/shm");

}  // namespace railyard::shm
