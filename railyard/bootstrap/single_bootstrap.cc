#include "railyard/bootstrap/single_bootstrap.h"

#include <fmt/format.h>

#include <condition_variable>
#include <map>
#include <mutex>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap {

// Keys live in this process; a get waits for another of its threads to set
// one. Also holds the job's abort, so waiting gets end with it.
class SingleBootstrap::LocalStore final : public Store {
 public:
  void set(const std::string& key, std::span<const std::byte> value) override {
    check_key(key);
    {
      const std::scoped_lock lock(mutex_);
      values_[key] = Blob(value.begin(), value.end());
    }
    changed_.notify_all();
  }

  [[nodiscard]] Blob get(const std::string& key, std::chrono::milliseconds timeout) override {
    check_key(key);
    std::unique_lock lock(mutex_);
    const bool found = changed_.wait_for(
        lock, timeout, [&] { return failure_.has_value() || values_.contains(key); });
    if (failure_) {
      throw_failure(*failure_);
    }
    if (!found) {
      throw TimeoutError(fmt::format(
          "store key \"{}\" was not set within {} ms (a job of one rank)", key, timeout.count()));
    }
    return values_.at(key);
  }

  void fail(JobFailure failure) {
    {
      const std::scoped_lock lock(mutex_);
      if (!failure_) {
        failure_ = std::move(failure);
      }
    }
    changed_.notify_all();
  }

  [[nodiscard]] std::optional<JobFailure> failure() const {
    const std::scoped_lock lock(mutex_);
    return failure_;
  }

  void throw_if_failed() const {
    if (auto failed = failure()) {
      throw_failure(*failed);
    }
  }

 private:
  static void check_key(const std::string& key) {
    if (key.size() > kMaxKeyLength) {
      throw UsageError(fmt::format("store key of {} bytes is longer than the {} allowed",
                                   key.size(), kMaxKeyLength));
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Blob> values_;
  std::optional<JobFailure> failure_;
};

SingleBootstrap::SingleBootstrap(std::span<const std::byte> descriptor)
    : descriptors_{Blob(descriptor.begin(), descriptor.end())},
      store_(std::make_unique<LocalStore>()) {}

SingleBootstrap::~SingleBootstrap() = default;

std::vector<Blob> SingleBootstrap::allgather(std::span<const std::byte> mine,
                                             std::chrono::milliseconds /*timeout*/) {
  store_->throw_if_failed();
  return {Blob(mine.begin(), mine.end())};
}

Blob SingleBootstrap::broadcast(int root, std::span<const std::byte> data,
                                std::chrono::milliseconds /*timeout*/) {
  if (root != 0) {
    throw UsageError(fmt::format("broadcast root {} is not a rank of a job of one rank", root));
  }
  store_->throw_if_failed();
  return {data.begin(), data.end()};
}

void SingleBootstrap::abort(int code, const std::string& reason) noexcept {
  try {
    log::error("rank 0 aborts the job with code {}: {}", code, reason);
    store_->fail(JobFailure::abort_by(0, code, reason));
  } catch (...) {  // NOLINT(bugprone-empty-catch): abort never throws; the log said it
  }
}

std::optional<JobFailure> SingleBootstrap::failure() const { return store_->failure(); }

Store& SingleBootstrap::store() { return *store_; }

}  // namespace railyard::bootstrap
