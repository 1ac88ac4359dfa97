#include "railyard/shm/stale_regions.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <system_error>

#include "railyard/common/detail/log.h"
#include "railyard/shm/shared_segment.h"

namespace railyard::shm {
namespace {

template <typename Number>
bool parse_field(std::string_view text, Number& out) {
  if (text.empty()) {
    return false;
  }
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

// kill(pid, 0) fails with ESRCH only when no such process exists; EPERM
// means it exists under another user.
bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

}  // namespace

std::optional<RegionOwner> owner_of_region(std::string_view file_name) {
  if (file_name.starts_with(kSegmentPrefix)) {
    file_name.remove_prefix(kSegmentPrefix.size());
  }
  const auto first = file_name.find(':');
  if (first == std::string_view::npos) {
    return std::nullopt;
  }
  const auto second = file_name.find(':', first + 1);
  if (second == std::string_view::npos) {
    return std::nullopt;
  }
  RegionOwner owner;
  unsigned index = 0;
  if (!parse_field(file_name.substr(0, first), owner.pid) || owner.pid <= 0 ||
      !parse_field(file_name.substr(first + 1, second - first - 1), owner.uid) ||
      !parse_field(file_name.substr(second + 1), index)) {
    return std::nullopt;
  }
  return owner;
}

std::size_t remove_stale_regions(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::directory_iterator entries(directory, error);
  if (error) {
    log::debug("shm: cannot list {} for stale regions: {}", directory.string(), error.message());
    return 0;
  }
  const uid_t me = ::geteuid();
  std::size_t removed = 0;
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string();
    const auto owner = owner_of_region(name);
    if (!owner || owner->uid != me || process_exists(owner->pid)) {
      continue;
    }
    // The name says who made it; the file must agree, so a file someone
    // else named to look like ours is left alone.
    struct stat status {};
    if (::lstat(entry.path().c_str(), &status) != 0 || !S_ISREG(status.st_mode) ||
        status.st_uid != me) {
      continue;
    }
    if (std::filesystem::remove(entry.path(), error)) {
      ++removed;
      log::info("shm: removed {}, a region left by process {}, which no longer exists",
                entry.path().string(), owner->pid);
    } else if (error) {
      log::warn("shm: cannot remove the stale region {}: {}", entry.path().string(),
                error.message());
    }
  }
  return removed;
}

}  // namespace railyard::shm
