#include "railyard/comm/detail/operation.h"

#include <fmt/format.h>

#include "railyard/comm/detail/tag_layout.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::comm::detail {
namespace {

std::string describe(const Operation& operation) {
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
[[noreturn]] void throw_failed(const Operation& operation, const Status& status,
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

namespace {

// The multi-rail layer refuses to start an operation with a peer that has
// failed (and for arguments it cannot take): the typed error, at once.
void started_or_failed(const railyard::Status& started, const char* what, int peer) {
  if (started.ok()) {
    return;
  }
  if (started.code() == StatusCode::kInvalidArgument) {
    throw UsageError(fmt::format("{}: {}", what, started.message()));
  }
  throw RemoteError(peer >= 0 ? std::optional<int>(peer) : std::nullopt,
                    fmt::format("{} {}: {}", what,
                                peer >= 0 ? fmt::format("rank {}", peer) : std::string("any rank"),
                                started.to_string()));
}

}  // namespace

Operation::Operation(std::shared_ptr<const Group> group_held, bool is_receive, int peer_rank,
                     int user_tag, std::size_t buffer_bytes) noexcept
    : group(std::move(group_held)),
      world(group->world.get()),
      receive(is_receive),
      peer(peer_rank),
      tag(user_tag),
      capacity(buffer_bytes) {}

std::size_t Operation::finish() {
  Status status;
  complete(*this, status);
  return status.bytes;
}

void Operation::log_failure() const noexcept {
  if (collective) {
    try {
      collective.rethrow();
    } catch (const std::exception& error) {
      log::warn("a released {} failed: {}", collective_name, error.what());
    }
  } else if (!request.status().ok()) {
    log::warn("a released {} failed: {}", to_string(request.kind()), request.status().to_string());
  }
}

void post(Operation& operation, void* data, std::size_t bytes, std::uint64_t wire,
          std::uint64_t ignore, const char* what) {
  mrail::Endpoint& endpoint = operation.world->endpoint();
  const int rank = operation.peer;
  const mrail::PeerId peer =
      rank == kAnySource
          ? mrail::kAnySource
          : operation.world->peer(operation.group->members[static_cast<std::size_t>(rank)]);
  started_or_failed(operation.receive
                        ? endpoint.recv(operation.request, peer, data, bytes, wire, ignore)
                        : endpoint.send(operation.request, peer, data, bytes, wire),
                    what, rank);
}

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

}  // namespace railyard::comm::detail
