#include "railyard/torch/progress_census.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <thread>
#include <utility>

#include "railyard/common/detail/log.h"

namespace railyard::pytorch {
namespace {

// How often a census looks for counts still missing.
constexpr std::chrono::milliseconds kPoll{50};

std::string ranks_text(const std::vector<int>& ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

}  // namespace

ProgressCensus::ProgressCensus(c10::intrusive_ptr<c10d::Store> store, int rank, int size)
    : store_(std::move(store)), rank_(rank), size_(size) {}

std::string ProgressCensus::key(int rank) const {
  return fmt::format("railyard/progress/{}", rank);
}

void ProgressCensus::publish() noexcept {
  const std::scoped_lock lock(mutex_);
  if (published_ || !store_) {
    return;
  }
  published_ = true;
  try {
    const std::string count = std::to_string(started_.load());
    store_->set(key(rank_), std::vector<std::uint8_t>(count.begin(), count.end()));
  } catch (const std::exception& e) {
    log::warn("torch backend: could not publish this rank's progress in the store: {}", e.what());
  }
}

void ProgressCensus::gather(std::chrono::milliseconds grace) {
  std::vector<std::string> missing;
  for (int rank = 0; rank < size_; ++rank) {
    if (rank != rank_) {
      missing.push_back(key(rank));
    }
  }
  // One question for all of them while any is missing, then each one's.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!missing.empty() && !store_->check(missing) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kPoll);
  }
  std::vector<std::optional<std::uint64_t>> counts(static_cast<std::size_t>(size_));
  counts[static_cast<std::size_t>(rank_)] = started_.load();
  for (int rank = 0; rank < size_; ++rank) {
    if (rank == rank_ || !store_->check({key(rank)})) {
      continue;
    }
    const std::vector<std::uint8_t> text = store_->get(key(rank));
    std::uint64_t count = 0;
    const auto* first = reinterpret_cast<const char*>(text.data());
    if (std::from_chars(first, first + text.size(), count).ec == std::errc()) {
      counts[static_cast<std::size_t>(rank)] = count;
    }
  }
  counts_ = std::move(counts);
  grace_used_ = grace;
}

std::string ProgressCensus::explain(std::uint64_t index, std::chrono::milliseconds grace) noexcept {
  publish();
  const std::scoped_lock lock(mutex_);
  try {
    if (!store_) {
      return {};
    }
    if (!counts_) {
      gather(grace);
    }
    std::vector<int> silent;
    std::vector<int> behind;
    std::vector<std::uint64_t> behind_counts;
    for (int rank = 0; rank < size_; ++rank) {
      const auto& count = (*counts_)[static_cast<std::size_t>(rank)];
      if (!count) {
        silent.push_back(rank);
      } else if (*count <= index) {
        behind.push_back(rank);
        behind_counts.push_back(*count);
      }
    }
    const std::uint64_t number = index + 1;
    if (silent.empty() && behind.empty()) {
      return fmt::format(
          "every rank has called it (the group's collective #{}): they may disagree on its "
          "sizes, element types or root",
          number);
    }
    std::vector<std::string> clauses;
    if (!behind.empty()) {
      clauses.push_back(
          fmt::format("{} had not called it (the group's collective #{}) when {} "
                      "failed, having called {}",
                      ranks_text(behind), number, behind.size() == 1 ? "it" : "they",
                      fmt::join(behind_counts, ", ")));
    }
    if (!silent.empty()) {
      clauses.push_back(
          fmt::format("{} did not report within {} ms: {} not called it (the "
                      "group's collective #{}), or not timed out in it yet",
                      ranks_text(silent), grace_used_.count(),
                      silent.size() == 1 ? "it has" : "they have", number));
    }
    return fmt::format("{}", fmt::join(clauses, "; "));
  } catch (const std::exception& e) {
    log::warn("torch backend: could not read the ranks' progress from the store: {}", e.what());
    return {};
  }
}

}  // namespace railyard::pytorch
