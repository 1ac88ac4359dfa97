#include "railyard/rail/rail.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rail/detail/rail_internals.h"
#include "railyard/rail/detail/remote_key.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/provider_defaults.h"
#include "railyard/rail/provider_selection.h"

namespace railyard::rail {

namespace {

RailOptions resolve_options(RailOptions options) {
  log::check_environment();
  if (options.provider.empty()) {
    options.provider = default_provider();
  }
  return options;
}

std::optional<BindAddress> resolve_address(const RailOptions& options) {
  if (options.address.empty()) {
    return std::nullopt;
  }
  return resolve_bind_address("rail address", options.address);
}

fabric::FabricInfo checked_info(const RailOptions& options,
                                const std::optional<BindAddress>& address) {
  auto info = select_rail_info(options.provider, address ? &*address : nullptr);
  require_rail_limits(read_limits(*info.get()));
  return info;
}

std::size_t queue_size(const RailOptions& options, const RailLimits& limits) {
  if (options.completion_queue_size != 0) {
    return options.completion_queue_size;
  }
  return limits.tx_queue_size + limits.rx_queue_size;
}

}  // namespace

namespace detail {

StatusCode code_for(int fi_errno) noexcept {
  switch (fi_errno) {
    case FI_ETRUNC:
    case FI_ETOOSMALL:
      return StatusCode::kTruncated;
    case FI_ECANCELED:
      return StatusCode::kCanceled;
    case FI_ETIMEDOUT:
      return StatusCode::kTimedOut;
    case FI_EINVAL:
    case FI_EMSGSIZE:
      return StatusCode::kInvalidArgument;
    case FI_ECONNREFUSED:
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case FI_EHOSTUNREACH:
    case FI_ENOTCONN:
    case FI_EADDRNOTAVAIL:
    case FI_ESHUTDOWN:
      return StatusCode::kUnreachable;
    default:
      return StatusCode::kIoError;
  }
}

}  // namespace detail

Rail::Rail() : Rail(RailOptions::from_environment()) {}

Rail::Rail(const RailOptions& options)
    : options_(resolve_options(options)),
      bind_address_(resolve_address(options_)),
      info_(checked_info(options_, bind_address_)),
      limits_(read_limits(*info_.get())),
      resources_(std::make_shared<Resources>(*info_.get())),
      av_(resources_->domain, options_.expected_peers),
      cq_(resources_->domain, queue_size(options_, limits_), &resources_->fabric),
      endpoint_(resources_->domain, *info_.get()),
      completion_batch_(detail::kCompletionBatch) {
  log_provider_defaults();
  endpoint_.bind(av_);
  endpoint_.bind(cq_);
  endpoint_.enable();
  address_ = endpoint_.name();
  name_ = av_.to_string(address_);
  static constexpr std::array<const char*, 3> kWaitNames{"fd", "provider", "none (yield)"};
  log::info("rail {}: {}{}; wait object {}", name_, limits_.summary(),
            bind_address_ ? fmt::format(", bound from '{}' on {}", bind_address_->spec,
                                        bind_address_->interface)
                          : std::string(", on the provider's default interface"),
            kWaitNames.at(static_cast<std::size_t>(cq_.wait_kind())));
}

Rail::~Rail() {
  // Operations still in flight belong to their owners; closing the endpoint
  // discards them. Say so, because an owner waiting on one would wait forever.
  const std::size_t deferred = tx_backlog_.size() + rx_backlog_.size();
  if (deferred != 0) {
    log::debug("rail {}: closing with {} deferred posts never issued", name_, deferred);
  }
}

Status Rail::reopen() {
  // A new completion queue too: tcp;ofi_rxm leaves the closed endpoint's
  // inner queues in the old one's wait set, and the next fi_trywait on it
  // reads freed memory. Everything the old one held has been delivered.
  cq_.close();
  failed_contexts_.clear();
  // At the address the old endpoint had, not the one it was asked for
  // (port 0 in it means any), written over the one asked for.
  // (reset() checked that the sizes match.)
  fabric::FabricInfo info = fabric::FabricInfo::copy_of(*info_.get());
  std::memcpy(info->src_addr, address_.data(), address_.size());
  try {
    cq_ = fabric::CompletionQueue(resources_->domain, queue_size(options_, limits_),
                                  &resources_->fabric);
    fabric::Endpoint endpoint(resources_->domain, *info.get());
    endpoint.bind(av_);
    endpoint.bind(cq_);
    endpoint.enable();
    if (endpoint.name() != address_) {
      return {StatusCode::kIoError,
              fmt::format("the provider reopened it at {}, not at its address",
                          av_.to_string(endpoint.name()))};
    }
    endpoint_ = std::move(endpoint);
  } catch (const Error& e) {
    return {StatusCode::kIoError, e.what()};
  }
  return {};
}

RailPeer Rail::insert_peer(std::span<const std::byte> address) {
  if (limits_.address_format == "FI_ADDR_STR") {
    // Strings ("fi_shm://4242:0:1"): any length, but terminated, since the
    // provider reads up to the NUL.
    constexpr std::size_t kMaxStringAddress = 256;
    if (address.size() < 2 || address.size() > kMaxStringAddress ||
        address.back() != std::byte{0} ||
        std::find(address.begin(), address.end() - 1, std::byte{0}) != address.end() - 1) {
      throw Error(
          fmt::format("peer address ({} bytes) is not a valid address for rail {} ({}): expected a "
                      "NUL-terminated FI_ADDR_STR string of 2 to {} bytes",
                      address.size(), name_, limits_.provider, kMaxStringAddress));
    }
    return RailPeer{av_.insert(address)};
  }
  if (limits_.address_length != 0 && address.size() != limits_.address_length) {
    throw Error(fmt::format("peer address is {} bytes, but rail {} ({}) uses {}-byte {} addresses",
                            address.size(), name_, limits_.provider, limits_.address_length,
                            limits_.address_format));
  }
  return RailPeer{av_.insert(address)};
}

void Rail::remove_peer(RailPeer peer) { av_.remove(peer.address); }

LocalRegion Rail::register_memory(void* base, std::size_t length) {
  if (base == nullptr || length == 0) {
    throw Error(fmt::format("rail {}: cannot register an empty region ({} bytes at {})", name_,
                            length, base));
  }
  constexpr std::uint64_t kAccess =
      FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  LocalRegion region;
  region.domain_keepalive_ = resources_;
  region.registration_ =
      fabric::MemoryRegion(resources_->domain, base, length, kAccess, next_requested_key_++);
  if (limits_.mr_endpoint()) {
    region.registration_.bind_and_enable(endpoint_);
  }
  region.base_ = base;
  region.length_ = length;
  region.descriptor_ = region.registration_.descriptor();

  RemoteKey key;
  key.length = length;
  if (limits_.mr_raw()) {
    key.raw = true;
    key.key = region.registration_.raw_key(key.base_address);
  } else {
    key.base_address = limits_.mr_virt_addr() ? reinterpret_cast<std::uint64_t>(base) : 0;
    ByteWriter(key.key).u64(region.registration_.key());
  }
  region.remote_key_ = encode_remote_key(key);
  return region;
}

RemoteRegion Rail::import_region(std::span<const std::byte> remote_key) {
  RemoteKey key = decode_remote_key(remote_key);
  if (key.raw != limits_.mr_raw()) {
    throw Error(fmt::format(
        "remote memory key is {} but rail {} ({}) uses {} keys: the peer runs another provider",
        key.raw ? "raw" : "a plain 64-bit key", name_, limits_.provider,
        limits_.mr_raw() ? "raw" : "plain 64-bit"));
  }
  RemoteRegion region;
  region.domain_keepalive_ = resources_;
  region.base_address_ = key.base_address;
  region.length_ = key.length;
  if (key.raw) {
    region.mapped_ = fabric::MappedKey(resources_->domain, key.base_address, std::move(key.key));
    region.key_ = region.mapped_.key();
  } else {
    region.key_ = ByteReader(key.key).u64();  // decode_remote_key checked it is 8 bytes
  }
  return region;
}

void Rail::set_peerless(bool peerless, std::chrono::microseconds gap) noexcept {
  peerless_ = peerless;
  peerless_gap_ = gap;
  next_peerless_poll_ = {};
}

bool Rail::wait(const Request& request, std::chrono::milliseconds timeout) {
  std::array<Rail*, 1> rails{this};
  return progress_until(
      rails, [&] { return request.done(); }, timeout, options_.wait);
}

}  // namespace railyard::rail
