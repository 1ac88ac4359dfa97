// What a Rail is asked to be.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "railyard/rail/wait_policy.h"

namespace railyard::rail {

// libfabric's `net` provider: native RDM endpoints over TCP. Against
// tcp;ofi_rxm and net;ofi_rxm, the lowest small-message latency, the same
// or more bandwidth, and rails that open faster (docs/benchmarks.md,
// "Tuning choices").
inline constexpr const char* kDefaultProvider = "net";

struct RailOptions {
  // libfabric provider, exactly as fi_info names it ("net", "tcp;ofi_rxm",
  // "verbs;ofi_rxm"). Empty: RAILYARD_PROVIDER, else kDefaultProvider.
  std::string provider;
  // Where to bind: interface, IP address, host name or FI_ADDR_STR (see
  // bind_address.h). Empty: the provider's first interface.
  std::string address;
  // Completion queue depth; 0 sizes it to the provider's tx + rx queues.
  std::size_t completion_queue_size = 0;
  // Hint for the address vector's size.
  std::size_t expected_peers = 64;
  // How long a post the provider keeps refusing with FI_EAGAIN may wait
  // before it fails with kUnreachable. A full queue or a connection being set
  // up clears in milliseconds; tcp;ofi_rxm refuses every post to a peer
  // whose process died, forever. Default: RAILYARD_POST_TIMEOUT_MS, 10 s.
  std::chrono::milliseconds post_timeout{10000};
  WaitPolicy wait;

  // Defaults with provider and spin taken from the environment; throws
  // ConfigError on an invalid variable.
  [[nodiscard]] static RailOptions from_environment();
};

// RAILYARD_PROVIDER when set (validated), else kDefaultProvider.
[[nodiscard]] std::string default_provider();

// RAILYARD_POST_TIMEOUT_MS when set (1 to 3600000), else 10 s.
[[nodiscard]] std::chrono::milliseconds post_timeout_from_environment();

}  // namespace railyard::rail
