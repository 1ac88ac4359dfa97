#include "railyard/comm/communicator_options.h"

#include "railyard/collectives/selection.h"

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::comm {

const char* to_string(SharedMemoryMode mode) noexcept {
  switch (mode) {
    case SharedMemoryMode::kAuto:
      return "auto";
    case SharedMemoryMode::kOn:
      return "on";
    case SharedMemoryMode::kOff:
      return "off";
  }
  return "?";
}

CommunicatorOptions CommunicatorOptions::from_environment() {
  CommunicatorOptions options;
  if (const auto text = env::get("RAILYARD_TIMEOUT")) {
    if (!iequals(trim(*text), "none")) {
      try {
        options.timeout = parse_duration("RAILYARD_TIMEOUT", *text, std::chrono::seconds(1),
                                         std::chrono::milliseconds(1), std::chrono::hours(24 * 7));
      } catch (const ConfigError& error) {
        // The duration parser's words, with the other form this variable takes.
        throw ConfigError(
            error.input(), error.value(),
            "expected none or" + error.expected().substr(std::string_view("expected").size()));
      }
    }
  }
  if (const auto text = env::get("RAILYARD_PROGRESS_THREAD")) {
    options.progress_thread = parse_uint("RAILYARD_PROGRESS_THREAD", *text, 0, 1) == 1;
  }
  if (const auto text = env::get("RAILYARD_SHM")) {
    const std::string_view value = trim(*text);
    if (iequals(value, "auto")) {
      options.shared_memory = SharedMemoryMode::kAuto;
    } else if (iequals(value, "on")) {
      options.shared_memory = SharedMemoryMode::kOn;
    } else if (iequals(value, "off")) {
      options.shared_memory = SharedMemoryMode::kOff;
    } else {
      throw ConfigError("RAILYARD_SHM", *text, "expected auto, on or off");
    }
  }
  if (const auto text = env::get("RAILYARD_HOST_SEGMENT")) {
    const std::string_view value = trim(*text);
    if (!iequals(value, "on") && !iequals(value, "off")) {
      throw ConfigError("RAILYARD_HOST_SEGMENT", *text, "expected on or off");
    }
    options.host_segment = iequals(value, "on");
  }
  if (const auto text = env::get("RAILYARD_SHM_PREFAULT")) {
    options.shm_prefault = parse_size("RAILYARD_SHM_PREFAULT", *text);
  }
  if (const auto text = env::get("RAILYARD_ALGO")) {
    options.algorithms = collectives::AlgorithmTable("RAILYARD_ALGO", *text);
  }
  return options;
}

}  // namespace railyard::comm
