// The exceptions railyard throws. Setup paths throw them; the multi-rail
// data path never throws: it completes requests with a railyard::Status,
// which the Communicator turns into these. Messages name the ranks involved.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace railyard {

// Base of every exception railyard throws. When a libfabric (or other C) call
// failed, call() names it and code() holds its return value (negative errno
// for libfabric); otherwise call() is empty and code() is 0.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  Error(std::string call, int code, const std::string& message);

  [[nodiscard]] const std::string& call() const noexcept { return call_; }
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  std::string call_;
  int code_ = 0;
};

// A libfabric call failed. The message reads
//   "<call> failed: <fi_strerror(-rc)> (<rc>): <context>".
class FabricError : public Error {
 public:
  FabricError(const std::string& call, int rc, const std::string& context);
};

// An input from outside (environment variable, option, address, command-line
// flag) was invalid. input() names it, value() is what was given, and the
// message says what was expected.
class ConfigError : public Error {
 public:
  ConfigError(std::string input, std::string value, const std::string& expected);

  [[nodiscard]] const std::string& input() const noexcept { return input_; }
  [[nodiscard]] const std::string& value() const noexcept { return value_; }
  // What was expected instead: the message after "is invalid: ".
  [[nodiscard]] const std::string& expected() const noexcept { return expected_; }

 private:
  std::string input_;
  std::string value_;
  std::string expected_;
};

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

// Throws FabricError when a libfabric call returned a negative value.
inline void check_fabric(int rc, const char* call, const std::string& context) {
  if (rc < 0) {
    throw FabricError(call, rc, context);
  }
}

}  // namespace railyard
