// Setting up a multi-rail endpoint, its peers and the entry points.
#include "railyard/mrail/endpoint.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "railyard/common/detail/local_rank.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/detail/populate_pages.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_internal.h"
#include "railyard/mrail/detail/matching_engine.h"
#include "railyard/mrail/detail/peer.h"
#include "railyard/rail/progress.h"
#include "railyard/shm/region_prefault.h"

namespace railyard::mrail {
namespace {

constexpr std::uint32_t kMinFragment = 1024;

// 64 random bits: endpoint identities only need to differ within a job.
std::uint64_t random_id() {
  std::random_device device;
  std::uint64_t id = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  id ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  id ^= static_cast<std::uint64_t>(::getpid()) << 16;
  return id == 0 ? 1 : id;
}

void validate(const Options& options) {
  const std::size_t network_limit = options.host_rail ? kMaxRails - 1 : kMaxRails;
  if (options.rails.empty() || options.rails.size() > network_limit) {
    throw ConfigError("rails", std::to_string(options.rails.size()),
                      fmt::format("expected 1 to {} rails", network_limit));
  }
  if (!options.rail_weights.empty() && options.rail_weights.size() != options.rails.size()) {
    throw ConfigError(
        "RAILYARD_RAIL_WEIGHTS", fmt::format("{} weights", options.rail_weights.size()),
        fmt::format("expected one weight per rail: {} rails are configured", options.rails.size()));
  }
  if (options.window < 4 || !std::has_single_bit(options.window)) {
    throw ConfigError("window", std::to_string(options.window),
                      "expected a power of two of at least 4");
  }
  if (options.fragment_size < kMinFragment) {
    throw ConfigError("fragment_size", std::to_string(options.fragment_size),
                      fmt::format("expected at least {} bytes", kMinFragment));
  }
  if (options.receive_buffers == 0 || options.send_buffers == 0) {
    throw ConfigError("receive_buffers/send_buffers", "0", "expected at least one buffer per rail");
  }
  if (options.min_chunk == 0) {
    throw ConfigError("min_chunk", "0", "expected at least 1 byte");
  }
  if (options.pull_depth == 0) {
    throw ConfigError("pull_depth", "0", "expected at least one read in flight per path");
  }
}

// See Options::fragment_size.
std::uint32_t fragment_size_for(const std::string& provider) {
  constexpr std::uint32_t kRxmEagerBuffer = 16 * 1024;
  constexpr std::uint32_t kWholeFragment = 32 * 1024;
  return provider.find("ofi_rxm") != std::string::npos
             ? kRxmEagerBuffer - static_cast<std::uint32_t>(kHeaderSize)
             : kWholeFragment;
}

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

}  // namespace

Endpoint::Endpoint() : Endpoint(Options::from_environment()) {}

Endpoint::Endpoint(Options options)
    : options_(std::move(options)),
      id_(random_id()),
      tagged_(std::make_unique<MatchingEngine>()),
      untagged_(std::make_unique<MatchingEngine>()) {
  log::check_environment();
  if (options_.fragment_size == 0) {
    options_.fragment_size =
        fragment_size_for(options_.provider.empty() ? rail::default_provider() : options_.provider);
  }
  validate(options_);
  EndpointAddress address{id_, options_.fragment_size, options_.window, {}};
  for (const std::string& rail_address : options_.rails) {
    rail::RailOptions rail_options;
    rail_options.provider = options_.provider;
    rail_options.address = rail_address;
    rail_options.wait = options_.wait;
    rail_options.post_timeout = options_.post_timeout;
    open_rail(rail_options, std::nullopt);
    address.rails.push_back(describe(*rails_.back()));
  }
  network_rails_ = rails_.size();
  if (options_.host_rail) {
    open_host_rail();
    if (host_rail_) {
      address.rails.push_back(describe(*rails_.back()));
    }
  }
  address_ = encode_address(address);
  poll_hint_.on_idle = [this] { idle_work(); };
  poll_hint_.lock = &mutex_;

  std::string home_reason;
  if (options_.home_rail) {
    if (*options_.home_rail >= network_rails_) {
      throw ConfigError("home_rail", std::to_string(*options_.home_rail),
                        fmt::format("expected a rail index below {}", network_rails_));
    }
    home_rail_ = *options_.home_rail;
    home_reason =
        options_.home_rail_reason.empty() ? "set by the caller" : options_.home_rail_reason;
  } else {
    const LocalRank local = local_rank_from_environment();
    home_rail_ = local.rank % network_rails_;
    home_reason =
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
  log::info("multi-rail endpoint {:016x}: {} rails: {}", id_, rails_.size(), rails_text);
  log::info(
      "multi-rail endpoint {:016x}: FI_OFI_MRAIL_CONFIG table {}; min chunk {} B, eager "
      "limit {} B, fragment {} B, window {} messages; home rail {} ({})",
      id_, options_.policies.describe(), options_.min_chunk, options_.eager_limit,
      options_.fragment_size, options_.window, home_rail_, home_reason);
  if (options_.background_progress) {
    // Often enough that a peer's posts never wait anywhere near its post
    // timeout for this process to take them in.
    const auto period = rail::BackgroundProgress::period_for(options_.post_timeout);
    background_ = std::make_unique<BackgroundTurn>(*this, period);
    log::info("multi-rail endpoint {:016x}: background progress every {} ms while idle", id_,
              period.count());
  }
}

Endpoint::~Endpoint() {
  // What the peers have not acknowledged may not have reached them: it
  // goes first (closing a connection with the peer's acknowledgements
  // unread resets it, and the peer loses what it had not read yet).
  linger();
  // No background turn may start on a closing endpoint.
  background_.reset();
  // Close every rail first: no completion can then reach an operation that
  // is about to go. Then fail what is still in flight, and let go of
  // orphaned transfers, releasing registrations while the caches exist.
  for (auto& state : rails_) {
    state->rail.reset();
  }
  const Status closed(StatusCode::kCanceled, "the multi-rail endpoint was closed");
  while (Request* request = active_.front()) {
    active_.erase(*request);
    request->fail(closed);
    request->finish();
  }
  orphans_.clear();
}

void Endpoint::open_rail(const rail::RailOptions& rail_options, std::optional<std::string> host) {
  const std::size_t index = rails_.size();
  const std::size_t slot_size = kHeaderSize + options_.fragment_size;
  auto state = std::make_unique<RailState>();
  state->rail = std::make_unique<rail::Rail>(rail_options);
  rail::Rail& rail = *state->rail;
  state->host_only = host.has_value();
  state->network = host ? "host:" + *host : network_of(rail);
  // A deferred inject that fails was a fragment, credit or FIN the peer
  // counts on: the peer's message stream is broken, so the peer fails.
  rail.on_post_failure(
      [this, index](rail::RailPeer peer, const Status& status) { on_post_failure(index, peer, status); });
  state->traffic.name = rail.name();
  state->traffic.host_only = state->host_only;
  if (state->host_only && rail.limits().provider == "shm") {
    const std::string region = shm::region_path(rail.name());
    state->region_guard = std::make_unique<shm::RegionGuard>(region);
    (void)shm::prefault_region(region, options_.host_rail->prefault_bytes);
  }

  const std::size_t receive_bytes = slot_size * options_.receive_buffers;
  state->receive_memory = std::make_unique_for_overwrite<std::byte[]>(receive_bytes);
  // Every page of the buffers is faulted in now (as registering them with
  // a provider that pins memory would): the provider fills them in turn,
  // and each page's first use was a page fault on the message's path. A
  // two-host 8-byte allreduce took 9.4-11.7 us over its first 25 calls
  // until the first page of each was faulted in here (8.0 then). With only
  // that page, 64 KiB allreduces on 4 ranks of one host, whose 16 KiB
  // blocks land eager and fill 4 pages of a buffer, still faulted 6 times
  // a call over their first ~30 calls (docs/benchmarks.md, session 38).
  if (!populate_pages(state->receive_memory.get(), receive_bytes)) {
    std::memset(state->receive_memory.get(), 0, receive_bytes);
  }
  state->receive_region = rail.register_memory(state->receive_memory.get(), receive_bytes);
  for (std::uint32_t s = 0; s < options_.receive_buffers; ++s) {
    auto slot = std::make_unique<RxSlot>(*this, index, state->receive_memory.get() + s * slot_size,
                                         slot_size);
    const Status posted =
        rail.post_recv(*slot, state->receive_region.slice(s * slot_size, slot_size));
    if (!posted.ok()) {
      throw Error(fmt::format("rail {}: posting receive buffers failed: {}", rail.name(),
                              posted.to_string()));
    }
    state->receive_slots.push_back(std::move(slot));
  }
  const std::size_t send_bytes = slot_size * options_.send_buffers;
  state->send_memory = std::make_unique_for_overwrite<std::byte[]>(send_bytes);
  if (!populate_pages(state->send_memory.get(), send_bytes)) {  // as the receive buffers
    std::memset(state->send_memory.get(), 0, send_bytes);
  }
  state->send_region = rail.register_memory(state->send_memory.get(), send_bytes);
  for (std::uint32_t s = 0; s < options_.send_buffers; ++s) {
    state->send_slots.push_back(
        std::make_unique<TxSlot>(*this, index, state->send_memory.get() + s * slot_size));
    state->free_slots.push_back(state->send_slots.back().get());
  }  // Where messages small enough to inject are written: they need no send
  // buffer, so acknowledgements and probes leave even while every buffer
  // is held by sends the provider has not finished (a dead link's).
  state->inject_scratch.resize(rail.limits().inject_size);

  constexpr std::size_t kScratchBytes = 64;
  state->scratch_memory = std::make_unique_for_overwrite<std::byte[]>(kScratchBytes);
  state->scratch_region = rail.register_memory(state->scratch_memory.get(), kScratchBytes);
  state->cache = std::make_unique<RegistrationCache>(
      rail, cache_enabled(options_.registration_cache, rail.limits()),
      options_.registration_cache_bytes);
  rail_pointers_.push_back(&rail);
  rails_.push_back(std::move(state));
}

void Endpoint::open_host_rail() {
  const HostRailOptions& host = *options_.host_rail;
  if (host.host.empty()) {
    throw ConfigError("host_rail.host", "\"\"", "expected a name for this host");
  }
  rail::RailOptions rail_options;
  rail_options.provider = host.provider;
  rail_options.wait = options_.wait;
  rail_options.post_timeout = options_.post_timeout;
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
        id_, host.provider, error.what());
    return;
  }
  host_rail_ = network_rails_;
}

RailDescriptor Endpoint::describe(const RailState& state) {
  return RailDescriptor{state.rail->limits().provider, state.network, state.rail->address()};
}

double Endpoint::weight_of(std::size_t rail) const noexcept {
  return options_.rail_weights.empty() || rail >= options_.rail_weights.size()
             ? 1.0
             : options_.rail_weights[rail];
}

const rail::Rail& Endpoint::rail(std::size_t index) const {
  if (index >= rails_.size()) {
    throw Error(
        fmt::format("rail index {} out of range: the endpoint has {} rails", index, rails_.size()));
  }
  return *rails_[index]->rail;
}

Peer* Endpoint::peer_of(PeerId id) const noexcept {
  return id.index < peers_.size() ? peers_[id.index].get() : nullptr;
}

Status Endpoint::check_peer(PeerId id, const char* what) const {
  const Peer* peer = peer_of(id);
  if (peer == nullptr) {
    return {StatusCode::kInvalidArgument,
            fmt::format("{}: peer {} was never inserted ({} peers known)", what, id.index,
                        peers_.size())};
  }
  if (peer->failed) {
    return peer->failure;
  }
  return {};
}

PeerId Endpoint::insert_peer(std::span<const std::byte> blob) {
  const Lock lock(mutex_);
  const EndpointAddress remote = decode_address(blob);
  if (const auto known = peer_ids_.find(remote.id); known != peer_ids_.end()) {
    return known->second;
  }
  std::vector<Path> paths;
  std::vector<double> weights;
  if (auto path = pair_host_rail(remote)) {
    // A peer on this host: shared memory alone. Striping it over loopback
    // TCP too would only slow it down.
    paths.push_back(*path);
    weights.push_back(1.0);
  } else {
    // Pair each of our network rails with a peer rail on the same network
    // and provider. Among several candidates, the k-th of our rails that has
    // any takes the k-th candidate, so equal layouts pair rail i with rail i.
    std::size_t with_candidates = 0;
    for (std::size_t local = 0; local < network_rails_; ++local) {
      const RailState& state = *rails_[local];
      std::vector<std::size_t> candidates;
      for (std::size_t r = 0; r < remote.rails.size(); ++r) {
        if (remote.rails[r].provider == state.rail->limits().provider &&
            remote.rails[r].network == state.network) {
          candidates.push_back(r);
        }
      }
      if (candidates.empty()) {
        log::info("peer {:016x}: our rail {} ({} on {}) has no peer rail on its network", remote.id,
                  local, state.rail->name(), state.network);
        continue;
      }
      const std::size_t chosen = candidates[with_candidates++ % candidates.size()];
      paths.emplace_back(local, chosen, state.rail->insert_peer(remote.rails[chosen].address));
      weights.push_back(weight_of(local));
    }
  }
  if (paths.empty()) {
    std::string ours;
    std::string theirs;
    for (const auto& state : rails_) {
      ours += fmt::format("{}{} ({})", ours.empty() ? "" : ", ", state->network,
                          state->rail->limits().provider);
    }
    for (const auto& rail : remote.rails) {
      theirs += fmt::format("{}{} ({})", theirs.empty() ? "" : ", ", rail.network, rail.provider);
    }
    throw Error(
        fmt::format("peer {:016x} shares no network with this endpoint: ours are {}; "
                    "theirs are {}",
                    remote.id, ours, theirs));
  }
  std::size_t home = 0;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    if (paths[p].local_rail == home_rail_) {
      home = p;
    }
  }
  const bool same_host = rails_[paths.front().local_rail]->host_only;
  const PeerId id{static_cast<std::uint32_t>(peers_.size())};
  std::string route;
  for (const auto& path : paths) {
    route += fmt::format("{}{}->{}", route.empty() ? "" : ", ", path.local_rail, path.remote_rail);
  }
  log::info("peer {} = endpoint {:016x}: {} {} (our rail->its rail) {}; home path {}", id.index,
            remote.id, paths.size(), same_host ? "same-host path" : "paths", route, home);
  if (!same_host && options_.pull_chunk != 0) {
    // Chunked reads keep each connection free for the other direction's
    // traffic (Options::pull_chunk); the host rail's reads hold none.
    constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t window = options_.pull_chunk > kUnbounded / options_.pull_depth
                                     ? kUnbounded
                                     : options_.pull_chunk * options_.pull_depth;
    for (Path& path : paths) {
      path.pull_chunk = options_.pull_chunk;
      path.pull_window = window;
    }
  }
  const std::uint64_t min_chunk = options_.min_chunk;
  peers_.push_back(std::make_unique<Peer>(
      id, remote.id, std::move(paths), home,
      StripePlan(std::move(weights), min_chunk, std::min<std::uint64_t>(128, min_chunk)),
      std::min(options_.fragment_size, remote.max_fragment),
      std::min(options_.window, remote.window), options_.window));
  Peer& peer = *peers_.back();
  peer.eager_limit =
      same_host && options_.host_rail ? options_.host_rail->eager_limit : options_.eager_limit;
  peer.path_of_rail.assign(rails_.size(), Peer::kNoPath);
  for (std::size_t p = 0; p < peer.paths.size(); ++p) {
    peer.path_of_rail[peer.paths[p].local_rail] = p;
  }
  // Failover needs a path to fail over to (docs/architecture.md); a dead
  // peer is found over one path too.
  peer.watched = !same_host && options_.rail_timeout.count() != 0;
  peer.guarded = peer.watched && peer.paths.size() > 1;
  peer_ids_.emplace(remote.id, id);
  mark_peerless_rails(peer);

  // Messages that arrived before we knew the peer.
  if (auto stashed = strangers_.find(remote.id); stashed != strangers_.end()) {
    auto messages = std::move(stashed->second);
    strangers_.erase(stashed);
    for (auto& [rail, bytes] : messages) {
      stranger_bytes_ -= bytes.size();
      handle(rail, bytes);
    }
  }
  return id;
}

void Endpoint::mark_peerless_rails(const Peer& inserted) {
  for (const Path& path : inserted.paths) {
    rails_[path.local_rail]->reaches_peer = true;
  }
  for (std::size_t rail = 0; rail < rails_.size(); ++rail) {
    const bool used = rails_[rail]->reaches_peer;
    rail::Rail& each = *rails_[rail]->rail;
    if (each.peerless() == used) {
      each.set_peerless(!used);
      log::info("multi-rail endpoint {:016x}, rail {} ({}): {}", id_, rail, each.name(),
                used ? std::string("reaches a peer; polled on every wait")
                     : fmt::format("reaches no peer; polled at most every {} us while idle",
                                   rail::Rail::kPeerlessPollGap.count()));
    }
  }
}

std::optional<Path> Endpoint::pair_host_rail(const EndpointAddress& remote) {
  if (!host_rail_) {
    return std::nullopt;
  }
  const RailState& state = *rails_[*host_rail_];
  for (std::size_t r = 0; r < remote.rails.size(); ++r) {
    if (remote.rails[r].provider != state.rail->limits().provider ||
        remote.rails[r].network != state.network) {
      continue;
    }
    try {
      Path path{*host_rail_, r, state.rail->insert_peer(remote.rails[r].address)};
      if (state.region_guard) {
        // The provider maps the peer's region as the peer is inserted.
        (void)shm::prefault_region(
            shm::region_path(state.rail->address_name(remote.rails[r].address)),
            options_.host_rail->prefault_bytes);
      }
      return path;
    } catch (const Error& error) {
      if (options_.host_rail->required) {
        throw Error(
            fmt::format("peer {:016x} on this host cannot be reached over the same-host "
                        "rail ({}): {}",
                        remote.id, state.rail->name(), error.what()));
      }
      log::warn(
          "peer {:016x} on this host cannot be reached over the same-host rail ({}): {}; "
          "using the network rails",
          remote.id, state.rail->name(), error.what());
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::vector<PathInfo> Endpoint::paths(PeerId id) const {
  const Lock lock(mutex_);
  const Peer* peer = peer_of(id);
  if (peer == nullptr) {
    throw Error(fmt::format("paths: peer {} was never inserted", id.index));
  }
  std::vector<PathInfo> out;
  for (const auto& path : peer->paths) {
    out.push_back(PathInfo{path.local_rail, path.remote_rail, rails_[path.local_rail]->host_only});
  }
  return out;
}

MatchingEngine& Endpoint::engine(bool tagged) noexcept { return tagged ? *tagged_ : *untagged_; }

Status Endpoint::send(Request& request, PeerId peer, const void* data, std::size_t size,
                      std::uint64_t tag) {
  const Lock lock(mutex_);
  return start_send(request, peer, data, size, tag, true);
}

Status Endpoint::send_untagged(Request& request, PeerId peer, const void* data, std::size_t size) {
  const Lock lock(mutex_);
  return start_send(request, peer, data, size, 0, false);
}

Status Endpoint::recv(Request& request, PeerId source, void* data, std::size_t size,
                      std::uint64_t tag, std::uint64_t ignore) {
  const Lock lock(mutex_);
  return start_recv(request, source, data, size, tag, ignore, true);
}

Status Endpoint::recv_untagged(Request& request, PeerId source, void* data, std::size_t size) {
  const Lock lock(mutex_);
  return start_recv(request, source, data, size, 0, 0, false);
}

Status Endpoint::cancel(Request& request) {
  const Lock lock(mutex_);
  if (request.kind_ != RequestKind::kRecv || request.done() ||
      !engine(request.tagged_).cancel(request)) {
    return {StatusCode::kInvalidArgument,
            "cancel: only a posted receive that has not matched can be canceled"};
  }
  request.fail(Status(StatusCode::kCanceled, "the receive was canceled"));
  finish(request);
  return {};
}

bool Endpoint::iprobe(PeerId source, std::uint64_t tag, std::uint64_t ignore, ProbeResult& result) {
  const Lock lock(mutex_);
  progress();
  const InboundMessage* message = tagged_->peek_unexpected(source, tag, ignore);
  if (message == nullptr) {
    return false;
  }
  result = ProbeResult{message->source, message->tag, message->total};
  return true;
}

bool Endpoint::probe(PeerId source, std::uint64_t tag, std::uint64_t ignore, ProbeResult& result,
                     std::chrono::nanoseconds timeout) {
  // Read under the lock, inside the predicate: once the wait returns,
  // another thread may take the message.
  return progress_until(
      [&] {
        const InboundMessage* found = tagged_->peek_unexpected(source, tag, ignore);
        if (found != nullptr) {
          result = ProbeResult{found->source, found->tag, found->total};
        }
        return found != nullptr;
      },
      timeout);
}

std::size_t Endpoint::progress() {
  const Lock lock(mutex_);
  std::size_t completed = 0;
  for (auto& state : rails_) {
    completed += state->rail->progress();
  }
  if (completed != 0) {
    mutex_.notify_progress();  // threads asleep in a wait look again
  }
  idle_work();
  return completed;
}

bool Endpoint::progress_until(const std::function<bool()>& done, std::chrono::nanoseconds timeout) {
  const Lock lock(mutex_);
  return rail::progress_until(rail_pointers_, done, timeout, options_.wait, &poll_hint_);
}

bool Endpoint::progress_until(std::span<Endpoint* const> endpoints,
                              const std::function<bool()>& done, std::chrono::nanoseconds timeout) {
  // Locked in one order (by address), so two such waits cannot deadlock.
  std::vector<Endpoint*> ordered(endpoints.begin(), endpoints.end());
  std::sort(ordered.begin(), ordered.end(), std::less<>());
  ordered.erase(std::unique(ordered.begin(), ordered.end()), ordered.end());
  std::vector<std::unique_lock<rail::ProgressLock>> locks;
  locks.reserve(ordered.size());
  for (Endpoint* endpoint : ordered) {
    locks.emplace_back(endpoint->mutex_);
  }
  std::vector<rail::Rail*> rails;
  for (const Endpoint* endpoint : endpoints) {
    rails.insert(rails.end(), endpoint->rail_pointers_.begin(), endpoint->rail_pointers_.end());
  }
  // The work each endpoint puts off its fast path (reposts, acknowledgements
  // owed) runs when the wait finds nothing, as in a wait on one endpoint.
  rail::PollHint hint;
  hint.on_idle = [&ordered] {
    for (Endpoint* endpoint : ordered) {
      endpoint->idle_work();
    }
  };
  return rail::progress_until(rails, done, timeout, endpoints.front()->options_.wait, &hint);
}

bool Endpoint::wait(const Request& request, std::chrono::nanoseconds timeout) {
  return progress_until([&] { return request.done(); }, timeout);
}

void Endpoint::wake_waiters() { mutex_.wake_sleepers(); }

void Endpoint::set_outside_work(const rail::OutsideWork* work) {
  const Lock lock(mutex_);
  poll_hint_.outside = work;
}

EndpointCounters Endpoint::counters() const {
  const Lock lock(mutex_);
  EndpointCounters out = totals_;
  out.orphaned_transfers = orphans_.size();
  out.unexpected_bytes = unexpected_bytes_;
  for (const auto& state : rails_) {
    RailTraffic traffic = state->traffic;
    traffic.rail = state->rail->counters();
    traffic.peerless = state->rail->peerless();
    out.rails.push_back(std::move(traffic));
    out.registration_hits += state->cache->hits();
    out.registration_misses += state->cache->misses();
  }
  for (const auto& peer : peers_) {
    for (const Path& path : peer->paths) {
      out.paths.push_back(PathTraffic{peer->id.index, path.local_rail, path.remote_rail, path.up,
                                      path.unacked.size(), path.unacked.bytes(), path.health});
    }
  }
  return out;
}

void Endpoint::drop(std::size_t rail, const std::string& why) {
  ++totals_.dropped_messages;
  ++rails_[rail]->traffic.errors;
  log::error("multi-rail endpoint {:016x}, rail {}: message dropped: {}", id_, rail, why);
}

void Endpoint::on_post_failure(std::size_t rail, rail::RailPeer address, const Status& status) {
  for (const auto& peer : peers_) {
    const bool on_this_rail = std::any_of(
        peer->paths.begin(), peer->paths.end(),
        [&](const Path& path) { return path.local_rail == rail && path.address == address; });
    if (on_this_rail) {
      lost_message(peer->id, rail, status);
      return;
    }
  }
  log::error("multi-rail endpoint {:016x}, rail {}: a message to an unknown peer was lost: {}", id_,
             rail, status.message());
}

void Endpoint::background_turn() noexcept {
  const std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) {
    return;  // a call is under way, and it progresses the endpoint itself
  }
  // Take in everything that is waiting, within reason: the user's next
  // call must not wait long for the lock.
  constexpr int kMaxRounds = 64;
  try {
    for (int round = 0; round < kMaxRounds && progress() != 0; ++round) {
    }
  } catch (const std::exception& e) {
    log::error("multi-rail endpoint {:016x}: background progress: {}", id_, e.what());
  }
}

void Endpoint::finish(Request& request) {
  active_.erase(request);
  request.finish();
}

}  // namespace railyard::mrail
