#include "railyard/mrail/detail/rail_set.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "railyard/common/detail/local_rank.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/detail/populate_pages.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"
#include "railyard/shm/region_prefault.h"

namespace railyard::mrail::detail {
namespace {

bool cache_enabled(RegistrationCacheMode mode, const rail::RailLimits& limits) {
  switch (mode) {
    case RegistrationCacheMode::kOn:
      return true;
    case RegistrationCacheMode::kOff:
      return false;
    case RegistrationCacheMode::kAuto:
      break;
  }
  // Pinning providers keep their own cache, which follows freed memory; ours
  // would not, so it stays out of their way.
  return (limits.mr_mode & (FI_MR_LOCAL | FI_MR_ALLOCATED)) == 0;
}

std::string network_of(const rail::Rail& rail) {
  return rail.bind_address() ? rail.bind_address()->network : rail.limits().fabric;
}

// `bytes` of memory for the provider to fill, every page faulted in now (as
// registering it with a provider that pins memory would): otherwise each
// page's first use is a page fault on a message's path.
std::unique_ptr<std::byte[]> faulted_in(std::size_t bytes) {
  auto memory = std::make_unique_for_overwrite<std::byte[]>(bytes);
  if (!populate_pages(memory.get(), bytes)) {
    std::memset(memory.get(), 0, bytes);
  }
  return memory;
}

}  // namespace

void RxSlot::on_complete(const rail::Completion& completion) {
  core_.receiver.on_receive(*this, completion);
}

void TxSlot::on_complete(const rail::Completion& completion) {
  core_.sender.on_sent(*this, completion);
}

void RailSet::open() {
  const Options& options = core_.options;
  for (const std::string& rail_address : options.rails) {
    rail::RailOptions rail_options;
    rail_options.provider = options.provider;
    rail_options.address = rail_address;
    rail_options.wait = options.wait;
    rail_options.post_timeout = options.post_timeout;
    open_rail(rail_options, std::nullopt);
  }
  network_rails_ = rails_.size();
  if (options.host_rail) {
    open_host_rail();
  }
  choose_home_rail();
}

void RailSet::close() noexcept {
  for (auto& state : rails_) {
    state->rail.reset();
  }
}

void RailSet::choose_home_rail() {
  const Options& options = core_.options;
  std::string reason;
  if (options.home_rail) {
    if (*options.home_rail >= network_rails_) {
      throw ConfigError("home_rail", std::to_string(*options.home_rail),
                        fmt::format("expected a rail index below {}", network_rails_));
    }
    home_rail_ = *options.home_rail;
    reason = options.home_rail_reason.empty() ? "set by the caller" : options.home_rail_reason;
  } else {
    const LocalRank local = local_rank_from_environment();
    home_rail_ = local.rank % network_rails_;
    reason =
        fmt::format("local rank {} ({}) modulo {} rails", local.rank, local.source, network_rails_);
  }
  std::string rails_text;
  for (std::size_t i = 0; i < rails_.size(); ++i) {
    const RailState& state = *rails_[i];
    rails_text += fmt::format(
        "{}[{}] {} on {} ({}, registration cache {})", i == 0 ? "" : "; ", i, state.rail->name(),
        state.network,
        state.host_only ? "same-host peers only" : fmt::format("weight {}", weight_of(i)),
        state.cache->enabled() ? "on" : "off");
  }
  log::info("multi-rail endpoint {:016x}: {} rails: {}", core_.id, rails_.size(), rails_text);
  log::info(
      "multi-rail endpoint {:016x}: FI_OFI_MRAIL_CONFIG table {}; min chunk {} B, eager "
      "limit {} B, fragment {} B, window {} messages; home rail {} ({})",
      core_.id, options.policies.describe(), options.min_chunk, options.eager_limit,
      options.fragment_size, options.window, home_rail_, reason);
}

void RailSet::open_rail(const rail::RailOptions& rail_options, std::optional<std::string> host) {
  const Options& options = core_.options;
  const std::size_t index = rails_.size();
  const std::size_t slot_size = kHeaderSize + options.fragment_size;
  auto state = std::make_unique<RailState>();
  state->rail = std::make_unique<rail::Rail>(rail_options);
  rail::Rail& rail = *state->rail;
  state->host_only = host.has_value();
  state->network = host ? "host:" + *host : network_of(rail);
  // A deferred inject that fails was a fragment, credit or FIN the peer
  // counts on: the peer's message stream is broken, so the peer fails.
  rail.on_post_failure([this, index](rail::RailPeer peer, const Status& status) {
    core_.paths.on_post_failure(index, peer, status);
  });
  state->traffic.name = rail.name();
  state->traffic.host_only = state->host_only;
  if (state->host_only && rail.limits().provider == "shm") {
    const std::string region = shm::region_path(rail.name());
    state->region_guard = std::make_unique<shm::RegionGuard>(region);
    (void)shm::prefault_region(region, options.host_rail->prefault_bytes);
  }

  const std::size_t receive_bytes = slot_size * options.receive_buffers;
  state->receive_memory = faulted_in(receive_bytes);
  state->receive_region = rail.register_memory(state->receive_memory.get(), receive_bytes);
  for (std::uint32_t s = 0; s < options.receive_buffers; ++s) {
    auto slot = std::make_unique<RxSlot>(core_, index, state->receive_memory.get() + s * slot_size,
                                         slot_size);
    const Status posted =
        rail.post_recv(*slot, state->receive_region.slice(s * slot_size, slot_size));
    if (!posted.ok()) {
      throw Error(fmt::format("rail {}: posting receive buffers failed: {}", rail.name(),
                              posted.to_string()));
    }
    state->receive_slots.push_back(std::move(slot));
  }
  const std::size_t send_bytes = slot_size * options.send_buffers;
  state->send_memory = faulted_in(send_bytes);
  state->send_region = rail.register_memory(state->send_memory.get(), send_bytes);
  for (std::uint32_t s = 0; s < options.send_buffers; ++s) {
    state->send_slots.push_back(
        std::make_unique<TxSlot>(core_, index, state->send_memory.get() + s * slot_size));
    state->free_slots.push_back(state->send_slots.back().get());
  }
  // Where messages small enough to inject are written: they need no send
  // buffer, so acknowledgements and probes leave even while every buffer
  // is held by sends the provider has not finished (a dead link's).
  state->inject_scratch.resize(rail.limits().inject_size);

  constexpr std::size_t kScratchBytes = 64;
  state->scratch_memory = std::make_unique_for_overwrite<std::byte[]>(kScratchBytes);
  state->scratch_region = rail.register_memory(state->scratch_memory.get(), kScratchBytes);
  state->cache = std::make_unique<RegistrationCache>(
      rail, cache_enabled(options.registration_cache, rail.limits()),
      options.registration_cache_bytes);
  pointers_.push_back(&rail);
  rails_.push_back(std::move(state));
}

void RailSet::open_host_rail() {
  const HostRailOptions& host = *core_.options.host_rail;
  if (host.host.empty()) {
    throw ConfigError("host_rail.host", "\"\"", "expected a name for this host");
  }
  rail::RailOptions rail_options;
  rail_options.provider = host.provider;
  rail_options.wait = core_.options.wait;
  rail_options.post_timeout = core_.options.post_timeout;
  try {
    open_rail(rail_options, host.host);
  } catch (const Error& error) {
    if (host.required) {
      throw Error(
          fmt::format("the same-host rail ({}) cannot open: {}", host.provider, error.what()));
    }
    log::warn(
        "multi-rail endpoint {:016x}: the same-host rail ({}) cannot open ({}); peers on this "
        "host are reached over the network rails",
        core_.id, host.provider, error.what());
    return;
  }
  host_rail_ = network_rails_;
}

std::vector<RailDescriptor> RailSet::descriptors() const {
  std::vector<RailDescriptor> out;
  out.reserve(rails_.size());
  for (const auto& state : rails_) {
    out.push_back(
        RailDescriptor{state->rail->limits().provider, state->network, state->rail->address()});
  }
  return out;
}

double RailSet::weight_of(std::size_t rail) const noexcept {
  const auto& weights = core_.options.rail_weights;
  return weights.empty() || rail >= weights.size() ? 1.0 : weights[rail];
}

void RailSet::repost(std::size_t rail) {
  RailState& state = *rails_[rail];
  for (RxSlot* slot : state.to_repost) {
    const Status reposted = state.rail->post_recv(
        *slot, rail::MutableBuffer{slot->data(), slot->size(), state.receive_region.descriptor()});
    if (!reposted.ok()) {
      log::error("multi-rail endpoint {:016x}, rail {}: reposting a receive buffer failed: {}",
                 core_.id, rail, reposted.to_string());
    }
  }
  state.to_repost.clear();
}

void RailSet::repost() {
  for (std::size_t rail = 0; rail < rails_.size(); ++rail) {
    if (!rails_[rail]->to_repost.empty()) {
      repost(rail);
    }
  }
}

void RailSet::mark_peerless(const std::vector<std::size_t>& used_rails) {
  for (const std::size_t rail : used_rails) {
    rails_[rail]->reaches_peer = true;
  }
  for (std::size_t rail = 0; rail < rails_.size(); ++rail) {
    const bool used = rails_[rail]->reaches_peer;
    rail::Rail& each = *rails_[rail]->rail;
    if (each.peerless() == used) {
      each.set_peerless(!used);
      log::info("multi-rail endpoint {:016x}, rail {} ({}): {}", core_.id, rail, each.name(),
                used ? std::string("reaches a peer; polled on every wait")
                     : fmt::format("reaches no peer; polled at most every {} us while idle",
                                   rail::Rail::kPeerlessPollGap.count()));
    }
  }
}

}  // namespace railyard::mrail::detail
