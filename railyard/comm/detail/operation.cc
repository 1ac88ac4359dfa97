#include "railyard/comm/detail/operation.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

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

// "rank 1", "ranks 1 and 3", "ranks 1, 2 and 3", "any rank".
std::string rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (!ranks.empty() && ranks.front() < 0) {
    return "any rank";
  }
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : (i + 1 == ranks.size() ? " and " : ", "), ranks[i]);
  }
  return out;
}

// What a collective that timed out was still waiting for: its exchange
// (its sets of transfers, counted from 1) and the ranks of that exchange it
// had not heard from or not reached, so the message names who held it up.
std::string stalled_on(const Operation& operation) {
  if (!operation.collective) {
    return {};
  }
  collectives::CollectiveTask::Stall stall;
  operation.collective.stalled_on(stall);
  std::vector<std::string> parts;
  if (!stall.receiving_from.empty()) {
    parts.push_back("to receive from " + rank_list(stall.receiving_from));
  }
  if (!stall.sending_to.empty()) {
    parts.push_back("to send to " + rank_list(stall.sending_to));
  }
  if (stall.on_shared_memory) {
    parts.push_back(
        stall.behind_on_host.empty()
            ? std::string("for the other ranks of this host to reach the same step in shared "
                          "memory")
            : fmt::format("for {} of this host's shared segment (numbered on the host) to reach "
                          "the same step",
                          rank_list(stall.behind_on_host)));
  }
  if (parts.empty()) {
    return {};
  }
  std::string what = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    what += " and " + parts[i];
  }
  return fmt::format("; at its exchange {} it was still waiting {}", stall.exchange, what);
}

// The typed error of a failed operation whose status is `status`.
[[noreturn]] void throw_failed(const Operation& operation, const Status& status,
                               std::uint64_t message_length) {
  const railyard::Status& error = status.error;
  switch (error.code()) {
    case StatusCode::kTruncated: {
      const std::string message = fmt::format(
          "a message of {} bytes from rank {} (tag {}) is longer than the receive buffer of {} "
          "bytes; the buffer holds its first {} bytes",
          message_length, status.source, status.tag, operation.capacity, status.bytes);
      operation.world->note_error(message);
      throw UsageError(message);
    }
    case StatusCode::kTimedOut: {
      const std::string message =
          fmt::format("{} failed: {}", describe(operation), error.message());
      operation.world->note_error(message);
      throw TimeoutError(message);
    }
    case StatusCode::kInvalidArgument:
      throw UsageError(fmt::format("{} failed: {}", describe(operation), error.message()));
    default:
      break;
  }
  const int peer = operation.receive ? status.source : operation.peer;
  const std::string message = fmt::format("{} failed: {}", describe(operation), error.to_string());
  operation.world->note_unreachable(message);
  throw RemoteError(peer >= 0 ? std::optional<int>(peer) : std::nullopt, message);
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

Operation::Operation(std::shared_ptr<const Group> group_held, bool receiving, int peer_rank,
                     int user_tag, std::size_t buffer_bytes) noexcept
    : group(std::move(group_held)),
      world(group->world.get()),
      receive(receiving),
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
  const railyard::Status started =
      operation.receive ? endpoint.recv(operation.request, peer, data, bytes, wire, ignore)
                        : endpoint.send(operation.request, peer, data, bytes, wire);
  if (!started.ok() && started.code() != StatusCode::kInvalidArgument) {
    operation.world->note_unreachable(fmt::format("{}: {}", what, started.to_string()));
  }
  started_or_failed(started, what, rank);
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

std::string describe_pending(const Operation& operation) {
  return describe(operation) + stalled_on(operation);
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
    const std::string message = fmt::format("{} did not finish within {} ms{}", describe(operation),
                                            timeout.count(), stalled_on(operation));
    world.note_error(message);
    throw TimeoutError(message + afterwards);
  }
}

std::chrono::milliseconds wait_timeout(const Operation& operation) noexcept {
  return operation.world->options().timeout.value_or(std::chrono::milliseconds::max());
}

}  // namespace railyard::comm::detail
