#include "railyard/torch/completion_thread.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "railyard/common/error.h"

namespace railyard::pytorch {
namespace {

// The longest one wait lasts: the thread then looks at the deadlines.
constexpr std::chrono::milliseconds kLongestWait{1000};

// `error` with its message led by the operation's description, of the
// same type, so that Python's RuntimeError says which call failed.
std::exception_ptr in_context(const std::exception_ptr& error, const std::string& what) {
  const std::string lead = fmt::format("railyard {}: ", what);
  try {
    std::rethrow_exception(error);
  } catch (const AbortError& e) {
    return std::make_exception_ptr(AbortError(e.rank().value_or(-1), e.code(), lead + e.what()));
  } catch (const RemoteError& e) {
    return std::make_exception_ptr(RemoteError(e.rank(), lead + e.what(), e.rail()));
  } catch (const TimeoutError& e) {
    return std::make_exception_ptr(TimeoutError(lead + e.what()));
  } catch (const UsageError& e) {
    return std::make_exception_ptr(UsageError(lead + e.what()));
  } catch (const std::exception& e) {
    return std::make_exception_ptr(Error(lead + e.what()));
  } catch (...) {
    return error;
  }
}

// How long a timed-out collective waits for the other ranks' progress:
// long enough for ranks whose own deadline comes a little later.
std::chrono::milliseconds census_grace(std::chrono::milliseconds timeout) {
  return std::clamp<std::chrono::milliseconds>(timeout / 4, std::chrono::seconds(1),
                                               std::chrono::seconds(10));
}

bool all_inactive(const std::vector<comm::Request>& requests) {
  return std::ranges::none_of(requests, [](const comm::Request& r) { return r.active(); });
}

}  // namespace

void complete(PendingOperation& operation) noexcept {
  try {
    const comm::Status* received = operation.reports_source && !operation.requests.empty()
                                       ? &operation.requests.front().status()
                                       : nullptr;
    if (received != nullptr && operation.expected_bytes &&
        received->bytes != *operation.expected_bytes) {
      throw UsageError(fmt::format("rank {} sent {} bytes, the tensor holds {}", received->source,
                                   received->bytes, *operation.expected_bytes));
    }
    if (operation.finish) {
      operation.finish();
    }
    operation.work->complete(received != nullptr ? received->source : -1);
  } catch (...) {
    operation.work->fail(in_context(std::current_exception(), operation.what));
  }
}

CompletionThread::CompletionThread(comm::Communicator communicator, ProgressCensus& census)
    : communicator_(std::move(communicator)), census_(census), thread_([this] { run(); }) {}

CompletionThread::~CompletionThread() {
  {
    const std::scoped_lock lock(mutex_);
    stopping_ = true;
  }
  news_ = true;
  wake_.notify_all();
  communicator_.wake_waiters();
  thread_.join();
}

void CompletionThread::add(PendingOperation operation) {
  if (all_inactive(operation.requests)) {
    complete(operation);
    return;
  }
  {
    const std::scoped_lock lock(mutex_);
    incoming_.push_back(std::move(operation));
  }
  // The thread sleeps on the condition when it has nothing in flight, else
  // in a wait on the endpoint.
  news_ = true;
  wake_.notify_one();
  communicator_.wake_waiters();
}

void CompletionThread::run() {
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (active_.empty()) {
        wake_.wait(lock, [this] { return stopping_ || !incoming_.empty(); });
      }
      news_ = false;
      for (PendingOperation& operation : incoming_) {
        active_.push_back(Active{std::move(operation)});
      }
      incoming_.clear();
      if (stopping_) {
        break;
      }
    }
    step();
  }
  const auto gone = std::make_exception_ptr(
      Error("the railyard process group was destroyed while this operation was in flight"));
  for (Active& active : active_) {
    if (!active.failed) {
      active.operation.work->fail(gone);
    }
  }
  active_.clear();
}

void CompletionThread::step() {
  // The active requests side by side for one wait, then back where they
  // came from.
  std::vector<comm::Request> waiting;
  std::vector<std::pair<Active*, comm::Request*>> homes;
  for (Active& active : active_) {
    for (comm::Request& request : active.operation.requests) {
      if (request.active()) {
        waiting.push_back(std::move(request));
        homes.emplace_back(&active, &request);
      }
    }
  }
  // wait_any ends one request (and throws when it failed), or none when an
  // operation is added or the wait reaches the next deadline.
  auto next_deadline = std::chrono::steady_clock::now() + kLongestWait;
  for (const Active& active : active_) {
    if (!active.failed) {
      next_deadline = std::min(next_deadline, active.operation.deadline);
    }
  }
  const auto wait =
      std::max(std::chrono::milliseconds(1), std::chrono::ceil<std::chrono::milliseconds>(
                                                 next_deadline - std::chrono::steady_clock::now()));
  std::exception_ptr error;
  try {
    (void)comm::Request::wait_any(waiting, wait, [this] { return news_.load(); });
  } catch (...) {
    error = std::current_exception();
    // The ranks timing out in this collective will ask how far this one came.
    census_.publish();
  }
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    auto [active, home] = homes[i];
    if (error && !waiting[i].active() && !active->failed) {
      // Its other requests run on (or fail) before it is dropped.
      active->failed = true;
      active->operation.work->fail(in_context(error, active->operation.what));
    }
    *home = std::move(waiting[i]);
  }
  for (auto it = active_.begin(); it != active_.end();) {
    if (!all_inactive(it->operation.requests)) {
      ++it;
      continue;
    }
    if (!it->failed) {
      complete(it->operation);
    }
    it = active_.erase(it);
  }
  fail_overdue();
}

void CompletionThread::fail_overdue() {
  const auto now = std::chrono::steady_clock::now();
  for (Active& active : active_) {
    PendingOperation& operation = active.operation;
    if (active.failed || now < operation.deadline) {
      continue;
    }
    // Named: whom each request still waits for (the first few), and the
    // ranks that have not called the collective. Requests that all ended
    // just now are completed by the next step instead.
    constexpr std::size_t kNamed = 4;
    std::vector<std::string> pending;
    for (const comm::Request& request : operation.requests) {
      if (std::string waiting = request.waiting_for(); !waiting.empty()) {
        pending.push_back(std::move(waiting));
      }
    }
    if (pending.empty()) {
      continue;
    }
    if (pending.size() > kNamed) {
      pending.resize(kNamed);
      pending.emplace_back("...");
    }
    active.failed = true;
    std::string census;
    census_.publish();
    if (operation.collective_index) {
      census = census_.explain(*operation.collective_index, census_grace(operation.timeout));
    }
    operation.work->fail(in_context(
        std::make_exception_ptr(
            TimeoutError(fmt::format("not done within the process group's timeout of {} ms: {}{}{}",
                                     operation.timeout.count(), fmt::join(pending, "; "),
                                     census.empty() ? "" : "; ", census))),
        operation.what));
  }
}

}  // namespace railyard::pytorch
