#include "railyard/common/detail/env.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "railyard/common/detail/log.h"

namespace railyard::env {
namespace {

// One variable as railyard last saw it: the storage getenv() returned and
// the text it held then.
struct Seen {
  const char* storage = nullptr;  // nullptr: unset
  std::string value;
  bool warned = false;
};

class Capture {
 public:
  static Capture& instance() {
    static Capture capture;
    return capture;
  }

  Capture() {
    // A child forked while another thread held the lock would hang on its
    // first read: fork() holds it instead. Nothing is locked inside it.
    (void)pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                         [] { instance().mutex_.unlock(); });
  }

  // The value to use for a captured variable. The first time the live value
  // is found rewritten in place, `rewritten_from` and `rewritten_to` say how,
  // for the caller to warn outside the lock (the logger reads the
  // environment too).
  std::optional<std::string> read(const char* name, std::string& rewritten_from,
                                  std::string& rewritten_to) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): railyard never writes the environment.
    const char* live = std::getenv(name);
    const std::lock_guard lock(mutex_);
    auto [it, inserted] = seen_.try_emplace(name);
    Seen& seen = it->second;
    if (inserted || live != seen.storage) {
      // First read, or the program set, replaced or removed the variable:
      // that is deliberate, and becomes what we protect from now on.
      seen.storage = live;
      seen.value = live != nullptr ? live : "";
      seen.warned = false;
    } else if (live != nullptr && seen.value != live && !seen.warned) {
      seen.warned = true;
      rewritten_from = seen.value;
      rewritten_to = live;
    }
    if (seen.storage == nullptr) {
      return std::nullopt;
    }
    return seen.value;
  }

  // Records every captured variable of the process's environment.
  void capture_all() {
    const std::lock_guard lock(mutex_);
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const char* equals = std::strchr(*entry, '=');
      if (equals == nullptr) {
        continue;
      }
      const std::string_view name(*entry, static_cast<std::size_t>(equals - *entry));
      if (captured(name)) {
        seen_[std::string(name)] = Seen{equals + 1, equals + 1, false};
      }
    }
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, Seen> seen_;
};

// Runs when the library is loaded: before main(), so before anything in the
// process can have called fi_getinfo through railyard or an MPI library
// linked with it.
bool capture_at_load() noexcept {
  try {
    Capture::instance().capture_all();
    return true;
  } catch (...) {
    return false;  // out of memory at load: variables are read as they are
  }
}

[[maybe_unused]] const bool kCapturedAtLoad = capture_at_load();

}  // namespace

bool captured(std::string_view name) noexcept {
  return name.starts_with("RAILYARD_") || name.starts_with("FI_OFI_MRAIL_");
}

std::optional<std::string> get(const char* name) {
  if (!captured(name)) {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): railyard never writes the environment.
    const char* value = std::getenv(name);
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  }
  std::string rewritten_from;
  std::string rewritten_to;
  auto value = Capture::instance().read(name, rewritten_from, rewritten_to);
  if (!rewritten_from.empty() || !rewritten_to.empty()) {
    log::warn(
        "{} was rewritten in this process's environment after railyard read it (now '{}', "
        "was '{}'), as libfabric's ofi_mrail provider does to its variables on its first "
        "fi_getinfo; railyard keeps using '{}'",
        name, rewritten_to, rewritten_from, rewritten_from);
  }
  return value;
}

void protect_from_libfabric() {
  for (const char* name : {"FI_OFI_MRAIL_CONFIG", "FI_OFI_MRAIL_ADDR", "FI_OFI_MRAIL_ADDR_STRC"}) {
    (void)get(name);
  }
}

std::string get_or(const char* name, std::string_view fallback) {
  auto value = get(name);
  return value ? *value : std::string(fallback);
}

}  // namespace railyard::env
