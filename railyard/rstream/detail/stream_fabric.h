// The provider-level objects stream channels share: the fabric and domain a
// listener's accepted channels all live in (a connecting channel opens its
// own), with the provider's limits and a source of unique memory keys.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "railyard/fabric/fabric.h"
#include "railyard/fabric/info.h"
#include "railyard/rail/rail_limits.h"
#include "railyard/rstream/channel_options.h"
#include "railyard/rstream/stream_address.h"

namespace railyard::rstream {

// Capabilities a stream channel needs of an FI_EP_MSG provider.
inline constexpr std::uint64_t kStreamCaps =
    FI_MSG | FI_RMA | FI_WRITE | FI_REMOTE_WRITE | FI_SEND | FI_RECV;

class StreamFabric {
 public:
  // Opens the fabric and domain of `info` (an fi_getinfo result or a
  // connection request) and checks the provider can carry a channel.
  explicit StreamFabric(fabric::FabricInfo info);

  [[nodiscard]] const fabric::FabricInfo& info() const noexcept { return info_; }
  [[nodiscard]] const fabric::Fabric& fabric() const noexcept { return fabric_; }
  [[nodiscard]] const fabric::Domain& domain() const noexcept { return domain_; }
  [[nodiscard]] const rail::RailLimits& limits() const noexcept { return limits_; }
  // A key no other registration in this domain uses (for providers without
  // FI_MR_PROV_KEY).
  [[nodiscard]] std::uint64_t next_key() noexcept { return next_key_.fetch_add(1); }

 private:
  fabric::FabricInfo info_;
  fabric::Fabric fabric_;
  fabric::Domain domain_;
  rail::RailLimits limits_;
  std::atomic<std::uint64_t> next_key_{1};
};

// fi_getinfo for an FI_EP_MSG endpoint of options.provider (or the address's
// scheme) sized by the options: listening at `address` when `passive`,
// else connecting to it. Throws Error naming the provider, the address and
// why nothing matched.
[[nodiscard]] fabric::FabricInfo select_stream_info(const StreamAddress& address, bool passive,
                                                    const ChannelOptions& options);

// Checks `limits` describe a provider a channel can use; throws Error
// naming the provider and what it lacks.
void require_stream_limits(const rail::RailLimits& limits);

}  // namespace railyard::rstream
