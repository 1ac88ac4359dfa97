#include "railyard/comm/request.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "railyard/comm/detail/tag_layout.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/error.h"

namespace railyard::comm {
namespace {

std::string describe(const detail::Operation& operation) {
  if (operation.collective_name != nullptr) {
    return fmt::format("{} (context {})", operation.collective_name, operation.group->context);
  }
  const char* what = operation.receive ? "receive from" : "send to";
  const std::string peer =
      operation.peer < 0 ? std::string("any rank") : fmt::format("rank {}", operation.peer);
  const std::string tag =
      operation.tag < 0 ? std::string("any tag") : fmt::format("tag {}", operation.tag);
  return fmt::format("{} {} ({}, context {})", what, peer, tag, operation.group->context);
}

// The typed error of a failed operation whose status is `status`.
[[noreturn]] void throw_failed(const detail::Operation& operation, const Status& status,
                               std::uint64_t message_length) {
  const railyard::Status& error = status.error;
  switch (error.code()) {
    case StatusCode::kTruncated:
      throw UsageError(fmt::format(
          "a message of {} bytes from rank {} (tag {}) is longer than the receive buffer of {} "
          "bytes; the buffer holds its first {} bytes",
          message_length, status.source, status.tag, operation.capacity, status.bytes));
    case StatusCode::kTimedOut:
      throw TimeoutError(fmt::format("{} failed: {}", describe(operation), error.message()));
    case StatusCode::kInvalidArgument:
      throw UsageError(fmt::format("{} failed: {}", describe(operation), error.message()));
    default:
      break;
  }
  const int peer = operation.receive ? status.source : operation.peer;
  throw RemoteError(peer >= 0 ? std::optional<int>(peer) : std::nullopt,
                    fmt::format("{} failed: {}", describe(operation), error.to_string()));
}

}  // namespace

namespace detail {

void complete(const Operation& operation, Status& status) {
  const mrail::Request& done = operation.request;
  // Field by field, and the rank looked up only for a wildcard receive:
  // this runs for every message.
  status.error = done.status();
  status.cancelled = done.status().code() == StatusCode::kCanceled;
  status.bytes = done.length();
  if (operation.receive) {
    status.source =
        operation.peer != kAnySource
            ? operation.peer
            : operation.group->rank_of_world(operation.world->world_rank_of(done.peer()));
    status.tag = status.cancelled ? kAnyTag : user_tag(done.tag());
  } else {
    status.source = operation.peer;
    status.tag = operation.tag;
  }
  if (!status.error.ok() && !status.cancelled) {
    throw_failed(operation, status, done.message_length());
  }
}

void await(Operation& operation, std::chrono::milliseconds timeout, const char* afterwards) {
  // A small blocking send has usually completed as it was posted (an
  // inject): it returns without a turn of polling, which costs a system
  // call per rail polled.
  if (operation.done()) {
    return;
  }
  // A send or receive waits on its request directly (World::wait); a
  // collective steps its schedule in its predicate.
  World& world = *operation.world;
  Operation* const waited = &operation;
  const bool done = operation.collective
                        ? world.progress_until([waited] { return waited->done(); }, timeout)
                        : world.wait(operation.request, timeout);
  if (!done) {
    throw TimeoutError(fmt::format("{} did not finish within {} ms{}", describe(operation),
                                   timeout.count(), afterwards));
  }
}

std::chrono::milliseconds wait_timeout(const Operation& operation) noexcept {
  return operation.world->options().timeout.value_or(std::chrono::milliseconds::max());
}

bool RequestAccess::done(const Request& request) noexcept {
  return !request.operation_ || request.operation_->done();
}

void RequestAccess::finish(Request& request) {
  if (request.operation_) {
    request.finish();
  }
}

}  // namespace detail

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
  if (!operation_ || !operation_->receive || operation_->collective) {
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
  detail::World* world =
      common_world(requests, [](Request& request) { return request.operation_.get(); });
  if (world == nullptr) {
    return std::nullopt;
  }
  std::optional<std::size_t> finished;
  const auto any_done = [&] {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].operation_ && requests[i].operation_->done()) {
        finished = i;
        return true;
      }
    }
    return false;
  };
  if (!world->progress_until(any_done, timeout)) {
    throw TimeoutError(
        fmt::format("wait_any: none of {} requests finished within {} ms; they are "
                    "still in flight",
                    requests.size(), timeout.count()));
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
    const auto pending = std::count_if(
        requests.begin(), requests.end(),
        [](const Request& request) { return request.operation_ && !request.operation_->done(); });
    throw TimeoutError(
        fmt::format("wait_all: {} of {} requests did not finish within {} ms; every request is "
                    "still as it was: wait again, test, cancel or release them",
                    pending, requests.size(), timeout.count()));
  }
  wait_each(requests, [](Request& request) {
    if (request.operation_) {
      request.finish();
    }
  });
}

}  // namespace railyard::comm
