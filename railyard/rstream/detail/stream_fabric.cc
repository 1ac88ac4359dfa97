#include "railyard/rstream/detail/stream_fabric.h"

#include <rdma/fi_errno.h>

#include <fmt/format.h>

#include <string>

#include "railyard/common/error.h"

namespace railyard::rstream {
namespace {

fabric::FabricInfo hints_for(const std::string& provider, const ChannelOptions& options,
                             bool sized) {
  fabric::FabricInfo hints = fabric::FabricInfo::allocate();
  hints->ep_attr->type = FI_EP_MSG;
  hints->caps = kStreamCaps;
  // Modes railyard copes with: contexts it passes are fi_context2, and it
  // posts receives for every message and every write carrying data.
  hints->mode = FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA;
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  // Channels accepted by one listener share its domain and may be used
  // from different threads.
  hints->domain_attr->threading = FI_THREAD_SAFE;
  if (sized) {
    hints->tx_attr->size = options.send_queue_size;
    hints->rx_attr->size = options.receive_queue_size;
  }
  hints.set_provider(provider);
  return hints;
}

}  // namespace

StreamFabric::StreamFabric(fabric::FabricInfo info)
    : info_(std::move(info)),
      fabric_(*info_.get()),
      domain_(fabric_, *info_.get()),
      limits_(rail::read_limits(*info_.get())) {
  require_stream_limits(limits_);
}

void require_stream_limits(const rail::RailLimits& limits) {
  if ((limits.caps & kStreamCaps) != kStreamCaps) {
    throw Error(
        fmt::format("provider {} lacks {} on FI_EP_MSG endpoints, which stream channels "
                    "need",
                    limits.provider, rail::caps_string(kStreamCaps & ~limits.caps)));
  }
  if (limits.cq_data_size < 4) {
    throw Error(
        fmt::format("provider {} carries {} bytes of remote completion data, stream "
                    "channels need 4",
                    limits.provider, limits.cq_data_size));
  }
  if (limits.mr_raw()) {
    throw Error(
        fmt::format("provider {} uses raw memory keys (FI_MR_RAW), which stream channels "
                    "do not carry",
                    limits.provider));
  }
}

fabric::FabricInfo select_stream_info(const StreamAddress& address, bool passive,
                                      const ChannelOptions& options) {
  const std::string provider = address.provider.empty() ? options.provider : address.provider;
  const std::string port = std::to_string(address.port);
  fabric::FabricInfo out;
  int rc = fabric::get_info(address.host.c_str(), port.c_str(), passive ? FI_SOURCE : 0,
                            hints_for(provider, options, true), out);
  if (rc == 0) {
    return out;
  }
  const std::string what = fmt::format(
      "{} rstream address {}", passive ? "listening at" : "connecting to", address.to_string());
  if (rc != -FI_ENODATA) {
    throw FabricError("fi_getinfo", rc, what);
  }
  // Say why: the provider, the queue sizes or the address.
  fabric::FabricInfo unsized;
  rc = fabric::get_info(address.host.c_str(), port.c_str(), passive ? FI_SOURCE : 0,
                        hints_for(provider, options, false), unsized);
  if (rc == 0) {
    throw Error(
        fmt::format("{}: provider {} cannot give queues of {} sends and {} receives "
                    "(its default is {} and {}); lower send_queue_size / "
                    "receive_queue_size",
                    what, provider, options.send_queue_size, options.receive_queue_size,
                    unsized->tx_attr->size, unsized->rx_attr->size));
  }
  fabric::FabricInfo any = fabric::FabricInfo::allocate();
  any->ep_attr->type = FI_EP_MSG;
  any.set_provider(provider);
  fabric::FabricInfo found;
  if (fabric::get_info(nullptr, nullptr, 0, any, found) != 0) {
    throw Error(
        fmt::format("{}: no libfabric provider named '{}' offers FI_EP_MSG endpoints "
                    "here (try tcp, or verbs on InfiniBand/RoCE)",
                    what, provider));
  }
  throw Error(
      fmt::format("{}: provider {} has no endpoint for host '{}' (an address of this "
                  "machine to listen on, a reachable peer to connect to) with {}",
                  what, provider, address.host, rail::caps_string(kStreamCaps)));
}

}  // namespace railyard::rstream
