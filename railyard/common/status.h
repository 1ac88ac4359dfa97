// The outcome of a data-path operation. Requests complete with a Status rather
// than throwing, so one failed message never unwinds a progress loop.
#pragma once

#include <memory>
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

// Every message completes with a Status, so a successful one must cost no more
// than two integers: the text of a failure lives behind a pointer that stays
// null until something fails, and moving or destroying an ok Status touches no
// string.
class Status {
 public:
  Status() noexcept = default;
  // fi_errno is the positive libfabric/POSIX error number, when there is one.
  Status(StatusCode code, std::string message, int fi_errno = 0);
  // Copies are on the data path too (a request's status handed to its
  // caller): inline, and the text copied out of line only when there is one.
  Status(const Status& other)
      : code_(other.code_),
        fi_errno_(other.fi_errno_),
        message_(other.message_ ? copy_text(*other.message_) : nullptr) {}
  Status& operator=(const Status& other) {
    code_ = other.code_;
    fi_errno_ = other.fi_errno_;
    // The copy is made before the old text goes: self-assignment keeps it.
    message_ = other.message_ ? copy_text(*other.message_) : nullptr;
    return *this;
  }
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;
  ~Status() = default;

  [[nodiscard]] bool ok() const noexcept { return code_ == StatusCode::kOk; }
  [[nodiscard]] StatusCode code() const noexcept { return code_; }
  [[nodiscard]] int fi_errno() const noexcept { return fi_errno_; }
  // Empty when the status carries no text (always so for an ok one).
  [[nodiscard]] const std::string& message() const noexcept;
  // "ok" or "<code>: <message>".
  [[nodiscard]] std::string to_string() const;

 private:
  static std::unique_ptr<const std::string> copy_text(const std::string& text);

  StatusCode code_ = StatusCode::kOk;
  int fi_errno_ = 0;
  std::unique_ptr<const std::string> message_;  // null when there is no text
};

}  // namespace railyard
