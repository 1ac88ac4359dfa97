// What a rail's provider offers, read from its fi_info, and the minimum a
// rail needs from it.
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace railyard::rail {

struct RailLimits {
  std::string provider;        // "tcp;ofi_rxm"
  std::string fabric;          // "127.0.0.0/8"
  std::string domain;          // "lo"
  std::string address_format;  // "FI_SOCKADDR_IN"
  std::size_t address_length = 0;
  std::uint64_t caps = 0;
  std::uint64_t max_message_size = 0;
  std::size_t inject_size = 0;
  std::size_t tx_queue_size = 0;
  std::size_t rx_queue_size = 0;
  std::size_t iov_limit = 0;
  std::size_t rma_iov_limit = 0;
  std::size_t cq_data_size = 0;
  std::size_t mr_key_size = 0;
  std::uint64_t mr_mode = 0;
  std::uint64_t msg_order = 0;

  [[nodiscard]] bool mr_local() const noexcept { return (mr_mode & FI_MR_LOCAL) != 0; }
  [[nodiscard]] bool mr_virt_addr() const noexcept { return (mr_mode & FI_MR_VIRT_ADDR) != 0; }
  [[nodiscard]] bool mr_prov_key() const noexcept { return (mr_mode & FI_MR_PROV_KEY) != 0; }
  [[nodiscard]] bool mr_endpoint() const noexcept { return (mr_mode & FI_MR_ENDPOINT) != 0; }
  [[nodiscard]] bool mr_raw() const noexcept { return (mr_mode & FI_MR_RAW) != 0; }
  [[nodiscard]] bool rma() const noexcept;

  // "FI_MR_LOCAL|FI_MR_VIRT_ADDR", or "none".
  [[nodiscard]] std::string mr_mode_string() const;
  // One line for logs: provider, domain, sizes, MR mode.
  [[nodiscard]] std::string summary() const;
};

[[nodiscard]] RailLimits read_limits(const fi_info& info);

// Capabilities and modes railyard requests of a rail provider.
inline constexpr std::uint64_t kRailCaps = FI_MSG | FI_TAGGED | FI_RMA | FI_READ | FI_WRITE |
                                           FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
inline constexpr std::uint64_t kRailModes = FI_CONTEXT | FI_CONTEXT2;
// Orderings a rail relies on between operations to the same peer: a read
// after writes sees them (flush), a send after writes follows them (notify).
inline constexpr std::uint64_t kRailOrder = FI_ORDER_RAW | FI_ORDER_SAW;
// The orderings railyard requests of `provider`: kRailOrder, except of
// libfabric's shm, which is asked for none (see rail_limits.cc for why that
// keeps flush and notify ordered there).
[[nodiscard]] std::uint64_t rail_order(const std::string& provider);
inline constexpr std::uint64_t kRailMrModes =
    FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_RAW;
// Below these a provider cannot carry railyard's protocols.
inline constexpr std::uint64_t kMinMaxMessageSize = std::uint64_t{64} * 1024;
inline constexpr std::size_t kMinQueueSize = 16;

// Throws Error naming the provider and what it lacks when `limits` fall short
// of what a rail needs.
void require_rail_limits(const RailLimits& limits);

// "FI_MSG|FI_RMA" for a set of capability bits.
[[nodiscard]] std::string caps_string(std::uint64_t caps);

}  // namespace railyard::rail
