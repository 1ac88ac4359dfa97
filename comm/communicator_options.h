// How a Communicator behaves; every field can come from the environment
// (docs/environment.md, "Communicator").
#pragma once

#include <chrono>
#include <optional>

namespace railyard::comm {

struct CommunicatorOptions {
  // How long a blocking call (wait, send, recv, probe, split) waits before
  // it throws TimeoutError; unset waits as long as it takes (a dead peer
  // still ends it, with RemoteError). Each call can give its own.
  // RAILYARD_TIMEOUT: a duration, or "none" (the default).
  std::optional<std::chrono::milliseconds> timeout;

  // Throws ConfigError naming the first invalid variable.
  [[nodiscard]] static CommunicatorOptions from_environment();
};

}  // namespace railyard::comm
