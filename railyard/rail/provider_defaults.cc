#include "railyard/rail/provider_defaults.h"

#include <cstdlib>
#include <mutex>

#include "railyard/common/detail/log.h"
#include "railyard/rail/rail_options.h"

namespace railyard::rail {
namespace {

std::vector<AppliedDefault>& applied() {
  static std::vector<AppliedDefault> settings;
  return settings;
}

// Runs when the library is loaded (see the header). Reads the environment
// with getenv: nothing can have rewritten it yet.
bool apply_at_load() noexcept {
  try {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): before main(), one thread
    const char* provider = std::getenv("RAILYARD_PROVIDER");
    for (const auto& setting :
         provider_defaults_for(provider != nullptr ? provider : kDefaultProvider)) {
      // NOLINTNEXTLINE(concurrency-mt-unsafe): before main(), one thread
      const char* current = std::getenv(setting.variable);
      applied().push_back(
          {setting, current != nullptr ? std::optional<std::string>(current) : std::nullopt});
      if (current == nullptr) {
        // NOLINTNEXTLINE(concurrency-mt-unsafe): before main(), one thread
        (void)::setenv(setting.variable, setting.value, 0);
      }
    }
    return true;
  } catch (...) {
    return false;  // out of memory at load: libfabric keeps its defaults
  }
}

[[maybe_unused]] const bool kAppliedAtLoad = apply_at_load();

}  // namespace

std::vector<ProviderDefault> provider_defaults_for(const std::string& provider) {
  std::vector<ProviderDefault> settings;
  if (provider.starts_with("tcp;")) {
    // Over tcp, ofi_rxm gives each rail one shared receive context and posts
    // this many 16 KiB buffers to it; its default there is 4096 (64 MiB per
    // rail, zeroed as the rail opens: most of a rank's start-up time). Other
    // core providers (verbs) default to 128 per connection, which railyard
    // leaves alone.
    settings.push_back(
        {"FI_OFI_RXM_MSG_RX_SIZE", "256",
         "ofi_rxm's shared receive queue of each tcp rail holds 256 buffers of 16 KiB (4 MiB) "
         "instead of 4096 (64 MiB, zeroed as the rail opens); the rails' bandwidth is the same"});
  }
  return settings;
}

const std::vector<AppliedDefault>& applied_provider_defaults() { return applied(); }

void log_provider_defaults() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const auto& entry : applied()) {
      if (entry.user_value) {
        log::info("libfabric: {}={} as the user set it (railyard's default is {})",
                  entry.setting.variable, *entry.user_value, entry.setting.value);
      } else {
        log::info("libfabric: {}={} set by railyard when it was loaded: {}", entry.setting.variable,
                  entry.setting.value, entry.setting.why);
      }
    }
  });
}

}  // namespace railyard::rail
