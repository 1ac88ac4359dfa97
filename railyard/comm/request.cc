#include "railyard/comm/request.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "railyard/comm/detail/group.h"
#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/error.h"

namespace railyard::comm {

Request::Request() = default;
Request::Request(std::unique_ptr<detail::Operation> operation) : operation_(std::move(operation)) {}
Request::~Request() = default;
Request::Request(Request&&) noexcept = default;
Request& Request::operator=(Request&&) noexcept = default;

void Request::finish() {
  std::unique_ptr<detail::Operation> operation = std::move(operation_);
  if (operation->collective) {
    status_ = Status{};
    operation->collective.rethrow();
    return;
  }
  detail::complete(*operation, status_);
}

std::string Request::waiting_for() const {
  return operation_ && !operation_->done() ? detail::describe_pending(*operation_) : std::string();
}

bool Request::test() {
  if (!operation_) {
    return true;
  }
  detail::World& world = *operation_->world;
  if (!operation_->done()) {
    world.endpoint().progress();
  }
  if (!operation_->done()) {
    world.check_job();
    return false;
  }
  finish();
  return true;
}

const Status& Request::wait() {
  if (!operation_) {
    return status_;
  }
  return wait(detail::wait_timeout(*operation_));
}

const Status& Request::wait(std::chrono::milliseconds timeout) {
  if (!operation_) {
    return status_;
  }
  detail::await(*operation_, timeout,
                "; the request is still in flight: wait again, test, cancel or release it");
  finish();
  return status_;
}

bool Request::cancel() {
  if (!operation_ || !operation_->receive || operation_->is_collective()) {
    return false;
  }
  return operation_->world->endpoint().cancel(operation_->request).ok();
}

void Request::release() noexcept {
  if (!operation_) {
    return;
  }
  // Keeps the world open while it takes the operation, which may hold the
  // last reference.
  const std::shared_ptr<const detail::Group> group = operation_->group;
  detail::World* world = operation_->world;
  if (operation_->done()) {
    operation_.reset();
    return;
  }
  try {
    world->adopt(std::move(operation_));
  } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory: the destructor ends it instead
  }
  operation_.reset();
}

namespace {

// The world every active request belongs to; UsageError when they differ.
// `operation_of` reads a request's operation (a template, not a
// std::function: it runs on every wait).
template <typename OperationOf>
detail::World* common_world(std::span<Request> requests, OperationOf operation_of) {
  detail::World* world = nullptr;
  for (Request& request : requests) {
    if (detail::Operation* operation = operation_of(request)) {
      if (world != nullptr && world != operation->world) {
        throw UsageError("wait_any/wait_all: the requests belong to different jobs' endpoints");
      }
      world = operation->world;
    }
  }
  return world;
}

// How long the forms without a timeout wait: the communicator's timeout
// (none: milliseconds::max()); nullopt when no request is active.
template <typename OperationOf>
std::optional<std::chrono::milliseconds> default_wait(std::span<Request> requests,
                                                      OperationOf operation_of) {
  const detail::World* world = common_world(requests, operation_of);
  if (world == nullptr) {
    return std::nullopt;
  }
  return world->options().timeout.value_or(std::chrono::milliseconds::max());
}

}  // namespace

std::optional<std::size_t> Request::wait_any(std::span<Request> requests) {
  const auto timeout =
      default_wait(requests, [](Request& request) { return request.operation_.get(); });
  return timeout ? wait_any(requests, *timeout) : std::nullopt;
}

std::optional<std::size_t> Request::wait_any(std::span<Request> requests,
                                             std::chrono::milliseconds timeout) {
  const std::optional<std::size_t> finished = wait_any(requests, timeout, [] { return false; });
  if (!finished && std::ranges::any_of(requests, [](const Request& r) { return r.active(); })) {
    throw TimeoutError(
        fmt::format("wait_any: none of {} requests finished within {} ms; they are "
                    "still in flight",
                    requests.size(), timeout.count()));
  }
  return finished;
}

std::optional<std::size_t> Request::wait_any(std::span<Request> requests,
                                             std::chrono::milliseconds timeout,
                                             const std::function<bool()>& stop) {
  detail::World* world =
      common_world(requests, [](Request& request) { return request.operation_.get(); });
  if (world == nullptr) {
    return std::nullopt;
  }
  std::optional<std::size_t> finished;
  const auto any_done_or_stop = [&] {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].operation_ && requests[i].operation_->done()) {
        finished = i;
        return true;
      }
    }
    return stop();
  };
  (void)world->progress_until(any_done_or_stop, timeout);
  if (!finished) {
    return std::nullopt;
  }
  requests[*finished].finish();
  return finished;
}

namespace {

// Waits for each request with `wait_one`; the others are still waited for
// after one fails, then the first failure is thrown.
template <typename WaitOne>
void wait_each(std::span<Request> requests, WaitOne wait_one) {
  std::exception_ptr first;
  for (Request& request : requests) {
    try {
      wait_one(request);
    } catch (...) {
      if (!first) {
        first = std::current_exception();
      }
    }
  }
  if (first) {
    std::rethrow_exception(first);
  }
}

}  // namespace

void Request::wait_all(std::span<Request> requests) {
  if (const auto timeout =
          default_wait(requests, [](Request& request) { return request.operation_.get(); })) {
    wait_all(requests, *timeout);
  }
}

void Request::wait_all(std::span<Request> requests, std::chrono::milliseconds timeout) {
  detail::World* world =
      common_world(requests, [](Request& request) { return request.operation_.get(); });
  if (world == nullptr) {
    return;
  }
  // One wait for all of them: waiting for each in turn would start a new
  // wait (and a sweep of every rail) per request.
  const auto all_done = [&] {
    return std::all_of(requests.begin(), requests.end(), [](const Request& request) {
      return !request.operation_ || request.operation_->done();
    });
  };
  if (!world->progress_until(all_done, timeout)) {
    // Each pending one named with whom it waits for (the first few).
    constexpr std::size_t kNamed = 4;
    std::size_t pending = 0;
    std::string named;
    for (const Request& request : requests) {
      if (std::string waiting = request.waiting_for(); !waiting.empty() && ++pending <= kNamed) {
        named += (pending == 1 ? "" : "; ") + waiting;
      }
    }
    throw TimeoutError(fmt::format(
        "wait_all: {} of {} requests did not finish within {} ms ({}{}); every request is still "
        "as it was: wait again, test, cancel or release them",
        pending, requests.size(), timeout.count(), named, pending > kNamed ? "; ..." : ""));
  }
  wait_each(requests, [](Request& request) {
    if (request.operation_) {
      request.finish();
    }
  });
}

}  // namespace railyard::comm
