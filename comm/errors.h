// The exceptions the Communicator and its bootstrap throw, besides the
// library-wide ConfigError (bad input) and FabricError (a failed libfabric
// call) of common/error.h. Messages name the ranks involved.
#pragma once

#include <optional>
#include <string>

#include "railyard/common/error.h"

namespace railyard::comm {

// An operation or a wait ran past its timeout. The operation's state is
// defined by the call that threw (see each call).
class TimeoutError : public Error {
 public:
  explicit TimeoutError(const std::string& message) : Error(message) {}
};

// Another rank failed, aborted, or could not be reached. rank() names it
// when one rank is to blame; rail() the rail, when the failure was on one.
class RemoteError : public Error {
 public:
  RemoteError(std::optional<int> rank, const std::string& message,
              std::optional<int> rail = std::nullopt)
      : Error(message), rank_(rank), rail_(rail) {}

  [[nodiscard]] std::optional<int> rank() const noexcept { return rank_; }
  [[nodiscard]] std::optional<int> rail() const noexcept { return rail_; }

 private:
  std::optional<int> rank_;
  std::optional<int> rail_;
};

// A rank called abort(code): every rank's pending and later operations on
// the job's communicators throw this, naming that rank.
class AbortError : public RemoteError {
 public:
  AbortError(int rank, int code, const std::string& message)
      : RemoteError(rank, message), code_(code) {}

  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

// The program called the API in a way it does not allow (a rank out of
// range, collectives called in different orders on different ranks).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message) {}
};

}  // namespace railyard::comm
