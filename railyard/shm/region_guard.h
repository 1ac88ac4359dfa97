// Removing this process's shared-memory regions when a fatal signal ends it.
//
// libfabric's shm provider removes a region when its endpoint closes, and
// from handlers it installs for some fatal signals (SIGINT, SIGTERM, SIGABRT,
// SIGSEGV, SIGBUS, SIGILL). Any other signal whose default action ends the
// process (SIGHUP from a closed terminal, SIGQUIT, SIGFPE, SIGPIPE, SIGUSR1,
// SIGALRM, SIGXCPU from a batch system's CPU limit ...) would leave the
// region in /dev/shm. For those still at their default action, a handler
// removes every guarded region of this process, then lets the signal end
// it as it would have. A program that installs its own handler later
// replaces ours; one installed earlier is left alone, except for SIGABRT
// (abort() ends the process whatever its handlers do), where ours runs
// first and then the earlier one.
#pragma once

#include <cstddef>
#include <string>

namespace railyard::shm {

// The file of a region in /dev/shm, from the shm endpoint's name
// ("fi_shm://4242:0:1" -> "/dev/shm/4242:0:1"): the provider strips the
// address's scheme. Empty when the name has none.
[[nodiscard]] std::string region_path(const std::string& endpoint_name);

class RegionGuard {
 public:
  // Guards `path` until destroyed. At most kMaxRegions at once; beyond it
  // the region is not guarded (logged), since the table the handler reads
  // cannot grow inside a signal handler.
  explicit RegionGuard(const std::string& path);
  ~RegionGuard();
  RegionGuard(const RegionGuard&) = delete;
  RegionGuard& operator=(const RegionGuard&) = delete;
  RegionGuard(RegionGuard&&) = delete;
  RegionGuard& operator=(RegionGuard&&) = delete;

  static constexpr std::size_t kMaxRegions = 64;

  [[nodiscard]] bool guarding() const noexcept { return slot_ != kNoSlot; }

 private:
  static constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);
  std::size_t slot_ = kNoSlot;
};

}  // namespace railyard::shm
