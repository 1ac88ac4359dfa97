// A Communicator's operation in flight (isend, irecv) and what a finished
// one reports.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "railyard/common/status.h"

namespace railyard::comm {

// A receive or probe that accepts a message from any rank (MPI_ANY_SOURCE).
inline constexpr int kAnySource = -1;
// A receive or probe that accepts any tag (MPI_ANY_TAG).
inline constexpr int kAnyTag = -1;

// What a finished operation did. Receives and probes: the sender's rank in
// the communicator, the message's tag and its length. Sends: the
// destination, the tag, the bytes sent.
struct Status {
  int source = kAnySource;
  int tag = kAnyTag;
  std::size_t bytes = 0;
  bool cancelled = false;
  // Ok, or why the operation failed (wait() and test() throw it as a
  // typed error).
  railyard::Status error;
};

namespace detail {
struct Operation;
}  // namespace detail

// Owned by the caller, movable. An empty Request (default, moved from, or
// released) is inactive: test() is true and wait() returns at once, as
// MPI_REQUEST_NULL. A request for a non-blocking collective (iallreduce
// and the others) moves on only while it is tested or waited for (with the
// others of a wait_all or wait_any).
class Request {
 public:
  Request();
  explicit Request(std::unique_ptr<detail::Operation> operation);
  // An operation still in flight is ended as the multi-rail layer's request
  // is (mrail/request.h): an unmatched receive is cancelled, anything else
  // is progressed to completion up to the post timeout, then detached.
  // release() first to let it finish on its own. A collective in flight
  // drops its transfers so: the other ranks' parts of it then fail or time
  // out.
  ~Request();
  Request(Request&& other) noexcept;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  [[nodiscard]] bool active() const noexcept { return operation_ != nullptr; }
  // What an operation not finished yet still waits for ("allreduce
  // (context 2); at its exchange 2 it was still waiting to receive from
  // rank 1"), for a caller's own timeout message; empty once it finished.
  [[nodiscard]] std::string waiting_for() const;

  // Whether it finished, progressing once. Throws as wait() does for a
  // failed operation; a finished request stays readable through status()
  // (a collective's: every field at its default).
  [[nodiscard]] bool test();
  // Waits until it finishes, up to the communicator's timeout (or the one
  // given). Throws TimeoutError when the time passes (the request is still
  // in flight: wait again, test, cancel or release it); RemoteError naming
  // the rank when the peer failed or the job lost a rank; AbortError when a
  // rank aborted; UsageError when a message was longer than the receive
  // buffer (the buffer holds its start).
  const Status& wait();
  const Status& wait(std::chrono::milliseconds timeout);
  // The finished operation's status (valid after test() returned true or
  // wait() returned).
  [[nodiscard]] const Status& status() const noexcept { return status_; }

  // Cancels a receive that has not matched a message: it finishes with
  // Status::cancelled. Returns false when it had already matched (it then
  // completes normally) or is not a receive.
  bool cancel();
  // Hands the operation to the library, which completes it in the
  // background (MPI_Request_free): the buffer must stay valid until the
  // peer has it, which the program learns some other way. The request
  // becomes inactive. A released collective is stepped by later waits on
  // the job's communicators, and keeps the job's endpoint open until it
  // ends.
  void release() noexcept;

  // Waits for one active request of `requests` to finish and returns its
  // index (its status in that request), or nullopt when none is active.
  // Throws as wait() does; a failed request counts as finished and its
  // error is thrown.
  static std::optional<std::size_t> wait_any(std::span<Request> requests);
  static std::optional<std::size_t> wait_any(std::span<Request> requests,
                                             std::chrono::milliseconds timeout);
  // wait_any that also ends, returning nullopt, when `stop()` holds (it is
  // asked whenever the wait wakes: Communicator::wake_waiters() wakes it)
  // or when `timeout` passes, which throws nothing. Throws a finished
  // request's failure as wait_any does.
  static std::optional<std::size_t> wait_any(std::span<Request> requests,
                                             std::chrono::milliseconds timeout,
                                             const std::function<bool()>& stop);
  // Waits for every active request, in one wait. When some fail, the
  // others still finish, then the first failure is thrown. On timeout it
  // throws TimeoutError and leaves every request as it was.
  static void wait_all(std::span<Request> requests);
  static void wait_all(std::span<Request> requests, std::chrono::milliseconds timeout);

 private:
  // Moves the operation's results into status_ and drops it; throws the
  // typed error of a failed one.
  void finish();

  std::unique_ptr<detail::Operation> operation_;
  Status status_;
};

}  // namespace railyard::comm
