// The outcome of a data-path operation. Requests complete with a Status rather
// than throwing, so one failed message never unwinds a progress loop.
#pragma once

#include <string>
#include <string_view>

namespace railyard {

enum class StatusCode {
  kOk = 0,
  kTruncated,        // the message was longer than the receive buffer
  kCanceled,         // the operation was canceled before it completed
  kInvalidArgument,  // the caller asked for something impossible (bad length, bounds)
  kTimedOut,         // a deadline passed
  kUnreachable,      // the peer cannot be reached or went away
  kIoError,          // any other failure reported by the provider
};

[[nodiscard]] std::string_view to_string(StatusCode code) noexcept;

class Status {
 public:
  Status() = default;
  // fi_errno is the positive libfabric/POSIX error number, when there is one.
  Status(StatusCode code, std::string message, int fi_errno = 0)
      : code_(code), fi_errno_(fi_errno), message_(std::move(message)) {}

  [[nodiscard]] bool ok() const noexcept { return code_ == StatusCode::kOk; }
  [[nodiscard]] StatusCode code() const noexcept { return code_; }
  [[nodiscard]] int fi_errno() const noexcept { return fi_errno_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }
  // "ok" or "<code>: <message>".
  [[nodiscard]] std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  int fi_errno_ = 0;
  std::string message_;
};

}  // namespace railyard
