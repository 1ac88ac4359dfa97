#include "railyard/shm/region_guard.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include "railyard/common/detail/log.h"

namespace railyard::shm {
namespace {

constexpr std::size_t kPathMax = 320;

// What the handler reads: fixed storage, published by `owner` last.
struct Slot {
  std::atomic<pid_t> owner{0};  // 0: free; else the process that made it
  std::array<char, kPathMax> path{};
};

std::array<Slot, RegionGuard::kMaxRegions> g_slots;  // NOLINT(*-avoid-non-const-global-variables)
std::mutex g_slots_mutex;                            // NOLINT(*-avoid-non-const-global-variables)

// Signals whose default action ends the process and that libfabric's shm
// provider does not handle itself (it does SIGINT, SIGTERM, SIGABRT,
// SIGSEGV, SIGBUS and SIGILL; we take any of those it left at the default).
constexpr std::array kFatalSignals{SIGHUP,  SIGINT,  SIGQUIT,  SIGILL,  SIGTRAP,   SIGABRT,
                                   SIGBUS,  SIGFPE,  SIGUSR1,  SIGSEGV, SIGUSR2,   SIGPIPE,
                                   SIGALRM, SIGTERM, SIGXCPU,  SIGXFSZ, SIGVTALRM, SIGPROF,
                                   SIGSYS,  SIGPWR,  SIGSTKFLT};

// The handler SIGABRT had before ours, called after ours (see below).
struct sigaction g_previous_abort {};  // NOLINT(*-avoid-non-const-global-variables)

void remove_own_regions() {
  const pid_t self = ::getpid();
  for (auto& slot : g_slots) {
    if (slot.owner.load(std::memory_order_acquire) == self) {
      (void)::unlink(slot.path.data());
    }
  }
}

// Only async-signal-safe calls. A forked child inherits the table: it
// removes only what its own process made.
void remove_regions_and_die(int signal) {
  remove_own_regions();
  // SA_RESETHAND put the default action back; the signal, blocked while
  // this runs, ends the process once it returns (a fault re-faults).
  (void)::raise(signal);
}

void remove_regions_then_abort(int signal, siginfo_t* info, void* context) {
  remove_own_regions();
  if ((g_previous_abort.sa_flags & SA_SIGINFO) != 0) {
    g_previous_abort.sa_sigaction(signal, info, context);
  } else if (g_previous_abort.sa_handler != SIG_DFL && g_previous_abort.sa_handler != SIG_IGN) {
    g_previous_abort.sa_handler(signal);
  }
  // abort() ends the process once the handlers return, whatever they did.
}

void install_handlers() {
  for (const int signal : kFatalSignals) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0) {
      continue;
    }
    struct sigaction ours {};
    sigemptyset(&ours.sa_mask);
    if (current.sa_handler == SIG_DFL && (current.sa_flags & SA_SIGINFO) == 0) {
      ours.sa_handler = remove_regions_and_die;
      ours.sa_flags = SA_RESETHAND;
    } else if (signal == SIGABRT && current.sa_handler != SIG_IGN) {
      // Someone's handler (libinfinipath's, loaded with libfabric's psm
      // provider, ends the process without removing anything). After
      // SIGABRT the process ends anyway, so running ours first is safe;
      // for other signals a handler may mean the process goes on, and
      // removing its region then would cut it off from new peers.
      g_previous_abort = current;
      ours.sa_sigaction = remove_regions_then_abort;
      ours.sa_flags = SA_SIGINFO;
    } else {
      continue;  // the program's handler, or libfabric's: theirs to handle
    }
    (void)::sigaction(signal, &ours, nullptr);
  }
}

}  // namespace

std::string region_path(const std::string& endpoint_name) {
  const auto scheme = endpoint_name.find("://");
  if (scheme == std::string::npos || scheme + 3 >= endpoint_name.size()) {
    return {};
  }
  return "/dev/shm/" + endpoint_name.substr(scheme + 3);
}

RegionGuard::RegionGuard(const std::string& path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (path.empty() || path.size() >= kPathMax) {
    log::warn(
        "shm: the region {} cannot be guarded against fatal signals (expected a path of "
        "1 to {} bytes)",
        path, kPathMax - 1);
    return;
  }
  const std::scoped_lock lock(g_slots_mutex);
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    Slot& slot = g_slots[i];
    if (slot.owner.load(std::memory_order_relaxed) != 0) {
      continue;
    }
    std::memcpy(slot.path.data(), path.c_str(), path.size() + 1);
    slot.owner.store(::getpid(), std::memory_order_release);
    slot_ = i;
    return;
  }
  log::warn("shm: {} regions are guarded already; {} is not removed on a fatal signal", kMaxRegions,
            path);
}

RegionGuard::~RegionGuard() {
  if (slot_ != kNoSlot) {
    const std::scoped_lock lock(g_slots_mutex);
    g_slots[slot_].owner.store(0, std::memory_order_release);
  }
}

}  // namespace railyard::shm
