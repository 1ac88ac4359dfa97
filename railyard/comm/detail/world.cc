#include "railyard/comm/detail/world.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <system_error>

#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/rank_rails.h"
#include "railyard/comm/detail/shared_memory.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"
#include "railyard/rail/wait_policy.h"

namespace railyard::comm::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Longest stretch a wait progresses before it looks at the control plane
// (aborts, lost ranks) again.
constexpr std::chrono::milliseconds kSlice{50};
// A wait this long or longer has no deadline.
constexpr std::chrono::hours kUnbounded{24 * 365 * 100};

// Worlds alive in this process: more than one are ranks of one job as
// threads (tests, the C API's in-process ranks).
std::atomic<int> live_worlds{0};

// A wait's timeout; none past a century: such a wait is unbounded (and its
// deadline cannot overflow).
std::optional<std::chrono::milliseconds> bounded_timeout(
    std::optional<std::chrono::milliseconds> timeout) {
  if (timeout && *timeout >= kUnbounded) {
    return std::nullopt;
  }
  return timeout;
}

// A wait's first slice: the whole wait when shorter than a slice.
std::chrono::nanoseconds first_slice(std::optional<std::chrono::milliseconds> timeout) {
  return timeout ? std::min<std::chrono::nanoseconds>(*timeout, kSlice) : kSlice;
}

// How many cores this host's ranks may run on: the union of their bindings
// (0 when none was reported).
std::size_t host_cores(const std::vector<RankCard>& cards, const HostPeers& host) {
  std::set<unsigned> cores;
  for (const int rank : host.ranks) {
    const auto& cpus = cards[static_cast<std::size_t>(rank)].cpus;
    cores.insert(cpus.begin(), cpus.end());
  }
  return cores.size();
}

// Fits the waits to a host that runs more ranks than the cores they may run
// on (WaitPolicy::fit_to_host) and logs, once per process, how they wait
// after that and the environment's say.
void fit_waits_to_host(rail::WaitPolicy& wait, const std::vector<RankCard>& cards,
                       const HostPeers& host) {
  const std::size_t cores = host_cores(cards, host);
  wait.fit_to_host(cores != 0 && host.ranks.size() > cores);
  static std::once_flag logged;
  std::call_once(logged, [&] {
    const std::string waits =
        wait.spin.count() == 0
            ? std::string("sleep at once")
            : fmt::format("spin {} us{} before they sleep", wait.spin.count(),
                          wait.yield_while_spinning ? ", yielding the core between polls," : "");
    log::info("communicator: {} rank(s) on this host, {} core(s) they may run on: waiting ranks {}",
              host.ranks.size(), cores, waits);
  });
}

std::vector<RankCard> decode_cards(const bootstrap::Bootstrap& bootstrap) {
  std::vector<RankCard> cards;
  const auto& descriptors = bootstrap.descriptors();
  cards.reserve(descriptors.size());
  for (std::size_t rank = 0; rank < descriptors.size(); ++rank) {
    cards.push_back(decode_rank_card(descriptors[rank], static_cast<int>(rank)));
  }
  return cards;
}

}  // namespace

World::World(std::unique_ptr<bootstrap::Bootstrap> bootstrap, CommunicatorOptions options,
             std::chrono::milliseconds setup_timeout, StartupSteps steps)
    : options_(std::move(options)),
      setup_timeout_(setup_timeout),
      bootstrap_(std::move(bootstrap)) {
  const std::vector<RankCard> cards = decode_cards(*bootstrap_);

  {
    std::vector<std::vector<JobSetting>> settings;
    settings.reserve(cards.size());
    for (const RankCard& card : cards) {
      settings.push_back(card.settings);
    }
    check_job_settings_agree(settings, rank());
  }
  host_ = host_peers(cards, rank());
  host_index_ = host_indexes(cards);
  auto endpoint_options = mrail::Options::from_environment(rails_for_rank(cards, host_));
  fit_waits_to_host(endpoint_options.wait, cards, host_);
  // A peer silent on every path is waited for as long as an operation waits.
  endpoint_options.peer_timeout = options_.timeout.value_or(std::chrono::milliseconds(0));
  endpoint_options.host_rail =
      host_rail_for(options_.shared_memory, host_, cards[static_cast<std::size_t>(rank())].host);
  if (endpoint_options.host_rail && options_.shm_prefault) {
    endpoint_options.host_rail->prefault_bytes = *options_.shm_prefault;
  }
  steps.mark("rail mapping");
  endpoint_ = std::make_unique<mrail::Endpoint>(std::move(endpoint_options));
  // Once the control plane says the job failed, what unwinds waits for no
  // peer (requests dropped in flight, the endpoint's closing).
  endpoint_->give_up_when(
      [bootstrap = bootstrap_.get()] { return bootstrap->failure().has_value(); });
  endpoint_->set_outside_work(&outside_work_);
  steps.mark("endpoint");
  const std::vector<bootstrap::Blob> addresses =
      bootstrap_->allgather(endpoint_->address(), setup_timeout);
  peers_.reserve(addresses.size());
  for (std::size_t other = 0; other < addresses.size(); ++other) {
    try {
      peers_.push_back(endpoint_->insert_peer(addresses[other]));
    } catch (const Error& error) {
      throw Error(fmt::format("rank {} cannot reach rank {}: {}", rank(), other, error.what()));
    }
    const std::size_t index = peers_.back().index;
    if (rank_of_peer_.size() <= index) {
      rank_of_peer_.resize(index + 1, -1);
    }
    rank_of_peer_[index] = static_cast<int>(other);
  }
  unsigned same_host = 0;
  for (std::size_t other = 0; other < peers_.size(); ++other) {
    const auto paths = endpoint_->paths(peers_[other]);
    same_host += static_cast<unsigned>(!paths.empty() && paths.front().same_host &&
                                       static_cast<int>(other) != rank());
  }
  steps.mark("address exchange");
  log::info(
      "communicator: rank {} of {} (local rank {} of {} on {}), bootstrap {}, {} rail(s), "
      "{} peer(s) over shared memory, progress thread {}; ready in {}",
      rank(), size(), host_.local_rank, host_.local_size(),
      cards[static_cast<std::size_t>(rank())].host, bootstrap_->method(),
      endpoint_->network_rail_count(), same_host, options_.progress_thread ? "on" : "off",
      steps.summary());
  if (options_.progress_thread) {
    progress_thread_ = std::make_unique<ProgressThread>(*endpoint_);
  }
  ++live_worlds;  // counted once built: the destructor counts it out
}

void World::note_unreachable(const std::string& message) noexcept {
  try {
    const std::scoped_lock lock(unreachable_mutex_);
    if (unreachable_.empty()) {
      unreachable_ = message;
    }
  } catch (...) {
  }
}

void World::note_error(const std::string& message) noexcept {
  try {
    const std::scoped_lock lock(unreachable_mutex_);
    last_error_ = message;
  } catch (...) {
  }
}

World::~World() {
  // A rank leaving after a peer could not be reached, or with an exception
  // unwinding its stack, would wait in the last barrier for ranks that may
  // be waiting for it: it tells them instead, so the job ends now.
  std::string broken;
  std::string last_error;
  {
    const std::scoped_lock lock(unreachable_mutex_);
    broken = unreachable_;
    last_error = last_error_;
  }
  if (broken.empty() && std::uncaught_exceptions() > 0 && size() > 1) {
    broken = last_error.empty()
                 ? std::string("an exception (the program left its communicators as it unwound)")
                 : last_error;
  }
  // Ranks as threads of one process share libfabric, whose net provider
  // crashed when one closed its rails while another progressed: they keep
  // leaving together.
  const bool alone_in_process = live_worlds.load() == 1;
  if (!broken.empty() && size() > 1 && alone_in_process && !bootstrap_->failure()) {
    const std::string reason = fmt::format("rank {} left after {}", rank(), broken);
    log::warn("rank {}: leaving after {}: telling the other ranks, which ends the job", rank(),
              broken);
    bootstrap_->abort(1, reason);
  } else if (!bootstrap_->failure()) {
    // The ranks leave together, so no rank closes its rails while a peer
    // still reads a message from them (a rendezvous, the last eager bytes).
    try {
      // The barrier moves no message, but what this rank sent last may
      // still need its progress (a connection being set up, a send the
      // provider queued: a send is done once its payload is copied out), and
      // a peer still receiving it holds the barrier up. Without a thread
      // progressing the endpoint already, one does until every rank is in.
      std::unique_ptr<ProgressThread> leaving;
      if (!progress_thread_) {
        try {
          leaving = std::make_unique<ProgressThread>(*endpoint_);
        } catch (const std::system_error& error) {
          log::warn("rank {}: leaving without progress: {}", rank(), error.what());
        }
      }
      bootstrap_->barrier(setup_timeout_);
    } catch (const std::exception& error) {
      log::warn("rank {}: leaving without the others: {}", rank(), error.what());
    }
  }
  {
    const std::scoped_lock lock(released_mutex_);
    released_.clear();
  }
  progress_thread_.reset();
  endpoint_.reset();
  --live_worlds;
}

int World::world_rank_of(mrail::PeerId peer) const noexcept {
  return peer.index < rank_of_peer_.size() ? rank_of_peer_[peer.index] : -1;
}

void World::check_job() const {
  if (auto failure = bootstrap_->failure()) {
    bootstrap::throw_failure(*failure);
  }
}

bool World::progress_until(const std::function<bool()>& done,
                           std::optional<std::chrono::milliseconds> timeout) {
  timeout = bounded_timeout(timeout);
  const std::chrono::nanoseconds slice = first_slice(timeout);
  return endpoint_->progress_until(done, slice) || progress_after_first_slice(done, timeout, slice);
}

bool World::wait(const mrail::Request& request, std::optional<std::chrono::milliseconds> timeout) {
  timeout = bounded_timeout(timeout);
  const std::chrono::nanoseconds slice = first_slice(timeout);
  return endpoint_->wait(request, slice) ||
         progress_after_first_slice([&request] { return request.done(); }, timeout, slice);
}

bool World::progress_after_first_slice(const std::function<bool()>& done,
                                       std::optional<std::chrono::milliseconds> timeout,
                                       std::chrono::nanoseconds slice) {
  // The first slice read no clock (the endpoint's wait keeps its own): a
  // message that is already on its way completes without the two clock
  // reads a deadline would cost. Placed after that slice, at the earliest
  // moment the wait can have begun, the deadline never cuts it short.
  const bool bounded = timeout.has_value();
  const Clock::time_point deadline =
      bounded ? Clock::now() - slice + *timeout : Clock::time_point::max();
  while (true) {
    reap_released();
    check_job();
    if (bounded) {
      const auto now = Clock::now();
      if (now >= deadline) {
        return done();
      }
      slice = std::min<std::chrono::nanoseconds>(deadline - now, kSlice);
    }
    if (endpoint_->progress_until(done, slice)) {
      return true;
    }
  }
}

std::uint32_t World::context_candidate() {
  const std::scoped_lock lock(context_mutex_);
  return next_context_;
}

void World::context_taken(std::uint32_t context) {
  const std::scoped_lock lock(context_mutex_);
  next_context_ = std::max(next_context_, context + 1);
}

void World::adopt(std::unique_ptr<Operation> operation) {
  // The world owns it now; a send or receive must not own the world. A
  // collective's own transfers hold the communicator anyway: it keeps the
  // world open until it ends (later waits on any of the job's
  // communicators step it).
  if (!operation->is_collective()) {
    operation->group.reset();
  }
  const std::scoped_lock lock(released_mutex_);
  released_.push_back(std::move(operation));
}

void World::reap_released() {
  const std::scoped_lock lock(released_mutex_);
  std::erase_if(released_, [](const std::unique_ptr<Operation>& operation) {
    if (!operation->done()) {
      return false;
    }
    operation->log_failure();
    return true;
  });
}

}  // namespace railyard::comm::detail
