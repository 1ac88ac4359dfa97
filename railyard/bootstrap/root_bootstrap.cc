#include "railyard/bootstrap/root_bootstrap.h"

#include <fmt/format.h>

#include <algorithm>

#include "railyard/bootstrap/detail/root_state.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap {

using detail::Outgoing;
using detail::RootMessage;
using detail::RootState;

namespace {

void check_rank_and_size(int rank, int size) {
  if (size < 1) {
    throw ConfigError("job size", std::to_string(size), "expected at least 1");
  }
  if (rank < 0 || rank >= size) {
    throw ConfigError("rank", std::to_string(rank), fmt::format("expected 0 to {}", size - 1));
  }
}

std::unique_ptr<RootState> make_state(int rank, int size, const BootstrapOptions& options) {
  check_rank_and_size(rank, size);
  if (size > 1 && options.root.empty()) {
    throw ConfigError("RAILYARD_ROOT", "",
                      "expected the root's host:port for a job of more "
                      "than one rank");
  }
  options.channel.validate();
  auto state = std::make_unique<RootState>();
  state->rank = rank;
  state->size = size;
  state->options = options;
  return state;
}

// A root without a job key takes any railyard process that reaches its
// address, with this job's size, as one of its ranks: said once, where the
// user reads what the job chose.
void note_missing_job_key(const BootstrapOptions& options) {
  if (options.job_key.empty()) {
    log::info(
        "bootstrap: no RAILYARD_JOB_KEY is set, so any railyard process that reaches the root at "
        "{} can take a rank's place; give every rank of the job the same random "
        "RAILYARD_JOB_KEY (railyard-run sets one; see docs/environment.md)",
        options.root);
  }
}

void check_key(const std::string& key) {
  if (key.size() > Store::kMaxKeyLength) {
    throw UsageError(fmt::format("store key of {} bytes, longer than the {} allowed", key.size(),
                                 Store::kMaxKeyLength));
  }
}

}  // namespace

// The store's values live at the root; other ranks ask it over their link.
class RootBootstrap::RootStore final : public Store {
 public:
  explicit RootStore(RootState& state) : state_(state) {}

  void set(const std::string& key, std::span<const std::byte> value) override {
    check_key(key);
    std::vector<Outgoing> out;
    {
      const std::scoped_lock lock(state_.mutex);
      if (state_.failure) {
        throw_failure(*state_.failure);
      }
      if (state_.is_root()) {
        state_.store_value(key, Blob(value.begin(), value.end()), out);
      } else {
        out.push_back({&state_.root_link(), RootMessage::kSet,
                       encode(detail::SetKey{key, Blob(value.begin(), value.end())})});
      }
    }
    detail::send_all(out);
  }

  Blob get(const std::string& key, std::chrono::milliseconds timeout) override {
    check_key(key);
    const auto deadline = detail::Clock::now() + timeout;
    std::unique_lock lock(state_.mutex);
    if (state_.is_root()) {
      (void)state_.changed.wait_until(
          lock, deadline, [&] { return state_.failure || state_.values.contains(key); });
      if (const auto value = state_.values.find(key); value != state_.values.end()) {
        return value->second;
      }
      if (state_.failure) {
        throw_failure(*state_.failure);
      }
      throw timed_out(key, timeout);
    }
    const std::uint64_t id = state_.next_get_id++;
    state_.answers.emplace(id, std::nullopt);
    lock.unlock();
    detail::send_one(state_.root_link(), RootMessage::kGet, encode(detail::GetKey{id, key}));
    lock.lock();
    const auto answer = state_.answers.find(id);
    (void)state_.changed.wait_until(lock, deadline,
                                    [&] { return state_.failure || answer->second.has_value(); });
    std::optional<Blob> value = std::move(answer->second);
    state_.answers.erase(answer);
    if (value) {
      return std::move(*value);
    }
    if (state_.failure) {
      throw_failure(*state_.failure);
    }
    throw timed_out(key, timeout);
  }

 private:
  [[nodiscard]] TimeoutError timed_out(const std::string& key,
                                       std::chrono::milliseconds timeout) const {
    return TimeoutError(fmt::format("rank {}: no rank set the bootstrap store key '{}' within {}",
                                    state_.rank, key, describe_duration(timeout)));
  }

  RootState& state_;
};

RootBootstrap::RootBootstrap(int rank, int size, std::span<const std::byte> descriptor,
                             const BootstrapOptions& options)
    : state_(make_state(rank, size, options)) {
  if (rank == 0) {
    if (size > 1) {
      note_missing_job_key(options);
      state_->listener = std::make_unique<rstream::Listener>(options.root, options.channel);
      state_->host(descriptor);
    } else {
      state_->descriptors.assign(1, Blob(descriptor.begin(), descriptor.end()));
    }
  } else {
    state_->join(descriptor);
  }
  state_->start_service();
  store_ = std::make_unique<RootStore>(*state_);
}

RootBootstrap::RootBootstrap(rstream::Listener listener, int size,
                             std::span<const std::byte> descriptor, const BootstrapOptions& options)
    : state_(make_state(0, size, [&] {
        BootstrapOptions with_address = options;
        with_address.root = listener.address().to_string();
        return with_address;
      }())) {
  note_missing_job_key(state_->options);
  state_->listener = std::make_unique<rstream::Listener>(std::move(listener));
  state_->host(descriptor);
  state_->start_service();
  store_ = std::make_unique<RootStore>(*state_);
}

RootBootstrap::~RootBootstrap() {
  RootState& state = *state_;
  if (state.is_root()) {
    // The others may still need the store or a collective; wait for each
    // to say goodbye or go. Once the job has failed they need neither, and
    // a rank that is stopped would hold the root to its timeout.
    std::unique_lock lock(state.mutex);
    const bool all_left = state.changed.wait_for(lock, state.options.timeout, [&] {
      return state.failure.has_value() ||
             std::none_of(state.links.begin(), state.links.end(),
                          [](const auto& link) { return link && link->open && !link->said_bye; });
    });
    if (!all_left) {
      log::warn("bootstrap: the root leaves while ranks are still connected (waited {})",
                describe_duration(state.options.timeout));
    }
  } else if (!state.links.empty()) {
    detail::send_one(state.root_link(), RootMessage::kBye, {});
  }
  state.stop_service();
  // After a failure a rank may be stopped and take no end of stream: the
  // links go at once rather than each after its shutdown timeout.
  const bool failed = state.failure.has_value();
  for (auto& link : state.links) {
    if (link) {
      if (failed) {
        link->channel.drop();
      } else {
        (void)link->channel.close();
      }
    }
  }
}

int RootBootstrap::rank() const noexcept { return state_->rank; }

int RootBootstrap::size() const noexcept { return state_->size; }

const std::vector<Blob>& RootBootstrap::descriptors() const noexcept { return state_->descriptors; }

std::vector<Blob> RootBootstrap::allgather(std::span<const std::byte> mine,
                                           std::chrono::milliseconds timeout) {
  return collective(detail::kEveryRank, mine, timeout, "allgather");
}

Blob RootBootstrap::broadcast(int root, std::span<const std::byte> data,
                              std::chrono::milliseconds timeout) {
  if (root < 0 || root >= state_->size) {
    throw UsageError(fmt::format("rank {}: broadcast from rank {}, expected 0 to {}", state_->rank,
                                 root, state_->size - 1));
  }
  auto result =
      collective(static_cast<std::uint32_t>(root),
                 root == state_->rank ? data : std::span<const std::byte>(), timeout, "broadcast");
  return std::move(result.front());
}

std::vector<Blob> RootBootstrap::collective(std::uint32_t root, std::span<const std::byte> mine,
                                            std::chrono::milliseconds timeout, const char* what) {
  RootState& state = *state_;
  const auto deadline = detail::Clock::now() + timeout;
  std::vector<Outgoing> out;
  std::unique_lock lock(state.mutex);
  if (state.failure) {
    throw_failure(*state.failure);
  }
  const std::uint64_t seq = state.next_seq++;
  detail::Gather gather{seq, root, Blob(mine.begin(), mine.end())};
  if (state.is_root()) {
    state.contribute(0, std::move(gather), out);
  } else {
    out.push_back({&state.root_link(), RootMessage::kGather, encode(gather)});
  }
  lock.unlock();
  detail::send_all(out);
  lock.lock();
  (void)state.changed.wait_until(lock, deadline,
                                 [&] { return state.failure || state.results.contains(seq); });
  // A collective that completed before the job failed still returns.
  const bool done = state.results.contains(seq);
  if (!done && state.failure) {
    throw_failure(*state.failure);
  }
  if (!done) {
    std::string missing;
    if (state.is_root()) {
      if (const auto round = state.rounds.find(seq); round != state.rounds.end()) {
        std::vector<int> ranks;
        for (std::size_t rank = 0; rank < round->second.blobs.size(); ++rank) {
          if (!round->second.blobs[rank]) {
            ranks.push_back(static_cast<int>(rank));
          }
        }
        missing = fmt::format(": {} did not take part", detail::rank_list(ranks));
      }
    }
    throw TimeoutError(fmt::format("rank {}: bootstrap {} #{} did not complete within {}{}",
                                   state.rank, what, seq, describe_duration(timeout), missing));
  }
  auto result = std::move(state.results.find(seq)->second);
  state.results.erase(seq);
  return result;
}

void RootBootstrap::abort(int code, const std::string& reason) noexcept {
  RootState& state = *state_;
  std::vector<Outgoing> out;
  try {
    const std::scoped_lock lock(state.mutex);
    const JobFailure failure = JobFailure::abort_by(state.rank, code, reason);
    if (!state.is_root() && !state.failure) {
      out.push_back({&state.root_link(), RootMessage::kAbort,
                     encode(detail::Abort{static_cast<std::uint32_t>(state.rank), code, reason})});
    }
    state.fail(failure, out);
  } catch (const std::exception& error) {
    log::error("bootstrap: abort could not be sent: {}", error.what());
  }
  detail::send_all(out);
}

std::optional<JobFailure> RootBootstrap::failure() const {
  const std::scoped_lock lock(state_->mutex);
  return state_->failure;
}

Store& RootBootstrap::store() { return *store_; }

}  // namespace railyard::bootstrap
