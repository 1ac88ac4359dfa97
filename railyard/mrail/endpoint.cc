// The front of a multi-rail endpoint: its public calls, each under the
// endpoint's lock, handed to the parts it is made of (detail/endpoint_core.h),
// and the waits that progress its rails.
#include "railyard/mrail/endpoint.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <random>

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/endpoint_core.h"
#include "railyard/mrail/detail/fragment_limits.h"
#include "railyard/rail/detail/background_progress.h"

namespace railyard::mrail {
namespace {

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
  if (options.fragment_size < detail::kMinFragmentSize) {
    throw ConfigError("fragment_size", std::to_string(options.fragment_size),
                      fmt::format("expected at least {} bytes", detail::kMinFragmentSize));
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

}  // namespace

// The endpoint's place in the process's background-progress thread.
class Endpoint::BackgroundTurn final : public rail::BackgroundTask {
 public:
  BackgroundTurn(Endpoint& endpoint, std::chrono::milliseconds period)
      : endpoint_(endpoint), progress_(rail::BackgroundProgress::shared()) {
    progress_->add(this, period);
  }
  // Returns once no turn is using the endpoint.
  ~BackgroundTurn() override { progress_->remove(this); }
  BackgroundTurn(const BackgroundTurn&) = delete;
  BackgroundTurn& operator=(const BackgroundTurn&) = delete;
  BackgroundTurn(BackgroundTurn&&) = delete;
  BackgroundTurn& operator=(BackgroundTurn&&) = delete;

  void background_turn() override { endpoint_.background_turn(); }

 private:
  Endpoint& endpoint_;
  std::shared_ptr<rail::BackgroundProgress> progress_;
};

Endpoint::Endpoint() : Endpoint(Options::from_environment()) {}

Endpoint::Endpoint(Options options) {
  log::check_environment();
  if (options.fragment_size == 0) {
    options.fragment_size =
        fragment_size_for(options.provider.empty() ? rail::default_provider() : options.provider);
  }
  validate(options);
  core_ = std::make_unique<detail::Core>(std::move(options), random_id(), *this);
  detail::Core& core = *core_;
  core.rails.open();
  address_ = encode_address(EndpointAddress{core.id, core.options.fragment_size,
                                            core.options.window, core.rails.descriptors()});
  core.poll_hint.on_idle = [&core] { core.idle_work(); };
  core.poll_hint.lock = &mutex_;
  if (core.options.background_progress) {
    // Often enough that a peer's posts never wait anywhere near its post
    // timeout for this process to take them in.
    const auto period = rail::BackgroundProgress::period_for(core.options.post_timeout);
    background_ = std::make_unique<BackgroundTurn>(*this, period);
    log::info("multi-rail endpoint {:016x}: background progress every {} ms while idle", core.id,
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
  core_->rails.close();
  core_->requests.fail_all(Status(StatusCode::kCanceled, "the multi-rail endpoint was closed"));
  core_->lanes.drop_orphans();
}

std::uint64_t Endpoint::id() const noexcept { return core_->id; }
std::size_t Endpoint::rail_count() const noexcept { return core_->rails.size(); }
std::size_t Endpoint::network_rail_count() const noexcept { return core_->rails.network_rails(); }
std::optional<std::size_t> Endpoint::host_rail() const noexcept { return core_->rails.host_rail(); }
std::size_t Endpoint::home_rail() const noexcept { return core_->rails.home_rail(); }
const Options& Endpoint::options() const noexcept { return core_->options; }

const rail::Rail& Endpoint::rail(std::size_t index) const {
  if (index >= core_->rails.size()) {
    throw Error(fmt::format("rail index {} out of range: the endpoint has {} rails", index,
                            core_->rails.size()));
  }
  return *core_->rails[index].rail;
}

PeerId Endpoint::insert_peer(std::span<const std::byte> blob) {
  const Lock lock(mutex_);
  return core_->peers.insert(blob);
}

std::vector<PathInfo> Endpoint::paths(PeerId id) const {
  const Lock lock(mutex_);
  const Peer* peer = core_->peers.find(id);
  if (peer == nullptr) {
    throw Error(fmt::format("paths: peer {} was never inserted", id.index));
  }
  std::vector<PathInfo> out;
  for (const auto& path : peer->paths) {
    out.push_back(
        PathInfo{path.local_rail, path.remote_rail, core_->rails[path.local_rail].host_only});
  }
  return out;
}

Status Endpoint::send(Request& request, PeerId peer, const void* data, std::size_t size,
                      std::uint64_t tag) {
  const Lock lock(mutex_);
  Status status = core_->sender.start(request, peer, data, size, tag, true);
  record_outbound();
  return status;
}

Status Endpoint::send_untagged(Request& request, PeerId peer, const void* data, std::size_t size) {
  const Lock lock(mutex_);
  Status status = core_->sender.start(request, peer, data, size, 0, false);
  record_outbound();
  return status;
}

Status Endpoint::recv(Request& request, PeerId source, void* data, std::size_t size,
                      std::uint64_t tag, std::uint64_t ignore) {
  const Lock lock(mutex_);
  return core_->receiver.start(request, source, data, size, tag, ignore, true);
}

Status Endpoint::recv_untagged(Request& request, PeerId source, void* data, std::size_t size) {
  const Lock lock(mutex_);
  return core_->receiver.start(request, source, data, size, 0, 0, false);
}

Status Endpoint::cancel(Request& request) {
  const Lock lock(mutex_);
  return core_->receiver.cancel(request);
}

bool Endpoint::iprobe(PeerId source, std::uint64_t tag, std::uint64_t ignore, ProbeResult& result) {
  const Lock lock(mutex_);
  progress();
  const InboundMessage* message = core_->receiver.peek(source, tag, ignore);
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
        const InboundMessage* found = core_->receiver.peek(source, tag, ignore);
        if (found != nullptr) {
          result = ProbeResult{found->source, found->tag, found->total};
        }
        return found != nullptr;
      },
      timeout);
}

MultiRegion Endpoint::register_memory(void* base, std::size_t length) {
  const Lock lock(mutex_);
  return core_->rma.register_memory(base, length);
}

RemoteMultiRegion Endpoint::import_region(PeerId peer_id, std::span<const std::byte> blob) {
  const Lock lock(mutex_);
  return core_->rma.import_region(peer_id, blob);
}

Status Endpoint::put(Request& request, const MultiRegion& local, std::uint64_t local_offset,
                     const RemoteMultiRegion& remote, std::uint64_t remote_offset,
                     std::size_t size) {
  const Lock lock(mutex_);
  Status status = core_->rma.start(request, RequestKind::kPut,
                                   {static_cast<std::byte*>(local.base()), &local, local_offset},
                                   remote, remote_offset, size);
  record_outbound();
  return status;
}

Status Endpoint::get(Request& request, const MultiRegion& local, std::uint64_t local_offset,
                     const RemoteMultiRegion& remote, std::uint64_t remote_offset,
                     std::size_t size) {
  const Lock lock(mutex_);
  Status status = core_->rma.start(request, RequestKind::kGet,
                                   {static_cast<std::byte*>(local.base()), &local, local_offset},
                                   remote, remote_offset, size);
  record_outbound();
  return status;
}

Status Endpoint::put(Request& request, const void* local, std::size_t size,
                     const RemoteMultiRegion& remote, std::uint64_t remote_offset) {
  const Lock lock(mutex_);
  // Only read from: the request's buffer pointer serves both directions.
  auto* data = const_cast<std::byte*>(static_cast<const std::byte*>(local));  // NOLINT
  Status status =
      core_->rma.start(request, RequestKind::kPut, {data, nullptr, 0}, remote, remote_offset, size);
  record_outbound();
  return status;
}

Status Endpoint::get(Request& request, void* local, std::size_t size,
                     const RemoteMultiRegion& remote, std::uint64_t remote_offset) {
  const Lock lock(mutex_);
  Status status =
      core_->rma.start(request, RequestKind::kGet, {static_cast<std::byte*>(local), nullptr, 0},
                       remote, remote_offset, size);
  record_outbound();
  return status;
}

Status Endpoint::flush(Request& request, const RemoteMultiRegion& remote) {
  const Lock lock(mutex_);
  Status status = core_->rma.flush(request, remote);
  record_outbound();
  return status;
}

Status Endpoint::take_path_down(PeerId id, std::size_t path, std::string_view reason) {
  const Lock lock(mutex_);
  return core_->paths.take_down(id, path, reason);
}

std::size_t Endpoint::progress() {
  const Lock lock(mutex_);
  std::size_t completed = 0;
  for (rail::Rail* rail : core_->rails.pointers()) {
    completed += rail->progress();
  }
  if (completed != 0) {
    mutex_.notify_progress();  // threads asleep in a wait look again
  }
  core_->idle_work();
  return completed;
}

bool Endpoint::progress_until(const std::function<bool()>& done, std::chrono::nanoseconds timeout) {
  const Lock lock(mutex_);
  const bool finished = rail::progress_until(core_->rails.pointers(), done, timeout,
                                             core_->options.wait, &core_->poll_hint);
  record_outbound();
  return finished;
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
    const auto& own = endpoint->core_->rails.pointers();
    rails.insert(rails.end(), own.begin(), own.end());
  }
  // The work each endpoint puts off its fast path (reposts, acknowledgements
  // owed) runs when the wait finds nothing, as in a wait on one endpoint.
  rail::PollHint hint;
  hint.on_idle = [&ordered] {
    for (Endpoint* endpoint : ordered) {
      endpoint->core_->idle_work();
    }
  };
  const bool finished =
      rail::progress_until(rails, done, timeout, endpoints.front()->core_->options.wait, &hint);
  for (Endpoint* endpoint : ordered) {
    endpoint->record_outbound();
  }
  return finished;
}

bool Endpoint::wait(const Request& request, std::chrono::nanoseconds timeout) {
  return progress_until([&] { return request.done(); }, timeout);
}

void Endpoint::wake_waiters() { mutex_.wake_sleepers(); }

void Endpoint::set_outside_work(const rail::OutsideWork* work) {
  const Lock lock(mutex_);
  core_->poll_hint.outside = work;
}

EndpointCounters Endpoint::counters() const {
  const Lock lock(mutex_);
  const detail::Core& core = *core_;
  EndpointCounters out = core.totals;
  out.orphaned_transfers = core.lanes.orphans();
  out.unexpected_bytes = core.credits.unexpected_bytes();
  for (std::size_t r = 0; r < core.rails.size(); ++r) {
    const detail::RailState& state = core.rails[r];
    RailTraffic traffic = state.traffic;
    traffic.rail = state.rail->counters();
    traffic.peerless = state.rail->peerless();
    out.rails.push_back(std::move(traffic));
    out.registration_hits += state.cache->hits();
    out.registration_misses += state.cache->misses();
  }
  for (const auto& peer : core.peers.all()) {
    for (const Path& path : peer->paths) {
      out.paths.push_back(PathTraffic{peer->id.index, path.local_rail, path.remote_rail, path.up,
                                      path.unacked.size(), path.unacked.bytes(), path.health});
    }
  }
  return out;
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
    for (int round = 0; round < kMaxRounds && !mutex_.contended() && progress() != 0; ++round) {
    }
    record_outbound();
  } catch (const std::exception& e) {
    log::error("multi-rail endpoint {:016x}: background progress: {}", core_->id, e.what());
  }
}

void Endpoint::record_outbound() noexcept {
  // Recorded for progress_handed_over(); the background thread's regular
  // turns also move it on.
  outbound_left_.store(core_->outbound_pending(), std::memory_order_relaxed);
}

void Endpoint::progress_handed_over() noexcept {
  if (outbound_left_.load(std::memory_order_relaxed)) {
    background_turn();
  }
}

void Endpoint::give_up_when(std::function<bool()> job_failed) {
  const Lock lock(mutex_);
  job_failed_ = std::move(job_failed);
}

void Endpoint::linger() noexcept {
  detail::Core& core = *core_;
  try {
    if (core.options.rail_timeout.count() == 0 || given_up()) {
      return;
    }
  } catch (...) {
    return;
  }
  try {
    {
      const Lock lock(mutex_);
      // What we owe goes first, whatever the count: a peer that closes after
      // us then has nothing to wait for.
      core.acks.send_all_owed();
      if (!core.paths.unacknowledged()) {
        return;
      }
      // Asked for at once: a peer owed fewer than a few would wait for more.
      core.paths.probe_unacknowledged();
    }
    if (!progress_until([&core] { return !core.paths.unacknowledged(); },
                        core.options.rail_timeout)) {
      log::info(
          "multi-rail endpoint {:016x}: closing with messages its peers have not "
          "acknowledged within {} ms",
          core.id, core.options.rail_timeout.count());
    }
  } catch (const std::exception& e) {
    log::warn("multi-rail endpoint {:016x}: waiting for acknowledgements before closing: {}",
              core.id, e.what());
  }
}

void Endpoint::abandon(Request& request) noexcept {
  const Lock lock(mutex_);
  if (request.done()) {
    return;  // finished by the background thread meanwhile
  }
  detail::Core& core = *core_;
  ++core.totals.abandoned_requests;
  // What never reached the wire goes quietly.
  if (request.match_hook_.linked()) {
    core.receiver.withdraw(request);
    return;
  }
  if (request.queue_hook_.linked()) {
    core.sender.withdraw(request);
    return;
  }
  // A peer that failed, or is silent on every path, would only run the
  // wait out: such a request is detached at once. Once the job has failed,
  // a live peer gets a second: what the provider still holds then leaves
  // before the rails close.
  const auto start = std::chrono::steady_clock::now();
  const auto hopeless = [this, &core, &request, start] {
    const auto* peer = core.peers.find(request.peer_);
    return (peer != nullptr && (peer->failed || peer->paused)) ||
           (given_up() && std::chrono::steady_clock::now() - start >= std::chrono::seconds(1));
  };
  try {
    (void)progress_until([&] { return request.done() || hopeless(); }, core.options.post_timeout);
  } catch (const std::exception& e) {
    log::error("multi-rail endpoint {:016x}: progressing a request destroyed in flight: {}",
               core.id, e.what());
  }
  if (!request.done()) {
    detach(request);
  }
}

void Endpoint::detach(Request& request) noexcept {
  detail::Core& core = *core_;
  const char* kind = to_string(request.kind_);
  log::warn(
      "multi-rail endpoint {:016x}: a {} request (peer {}, {} bytes) was destroyed in flight and "
      "did not complete (its peer failed or is silent, or within the post timeout of {} ms): "
      "detached",
      core.id, kind, request.peer_.index, request.capacity_, core.options.post_timeout.count());
  if (request.kind_ == RequestKind::kSend && request.large_) {
    // The peer may still read the buffer, which may be freed: stop it.
    for (auto& lease : request.large_->leases) {
      lease.revoke();
    }
  }
  if (request.kind_ == RequestKind::kSend || request.kind_ == RequestKind::kRecv) {
    // A message half sent or half received breaks the peer's stream: the
    // receiver waits for it, or the sender for its FIN.
    if (Peer* peer = core.peers.find(request.peer_); peer != nullptr) {
      core.peers.fail(*peer, Status(StatusCode::kUnreachable,
                                    fmt::format("a {} request to it was destroyed in flight, "
                                                "half sent or received",
                                                kind)));
    }
    if (request.done()) {
      return;
    }
  }
  // Send buffers the provider still holds forget it. (Failing the peer
  // removed its queued fragments and its wait for a FIN; RMA has neither.)
  for (std::size_t r = 0; r < core.rails.size(); ++r) {
    for (auto& slot : core.rails[r].send_slots) {
      if (slot->owner == &request) {
        slot->owner = nullptr;
      }
    }
  }
  if (request.large_) {
    core.lanes.orphan(request);
  }
  request.fail(Status(StatusCode::kCanceled, "the request was destroyed in flight"));
  core.requests.finish(request);
}

}  // namespace railyard::mrail
