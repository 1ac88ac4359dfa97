#include "railyard/common/status.h"

#include <memory>
#include <string>
#include <utility>

namespace railyard {

std::string_view to_string(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kTruncated:
      return "truncated";
    case StatusCode::kCanceled:
      return "canceled";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kTimedOut:
      return "timed out";
    case StatusCode::kUnreachable:
      return "unreachable";
    case StatusCode::kIoError:
      return "I/O error";
  }
  return "unknown";
}

Status::Status(StatusCode code, std::string message, int fi_errno)
    : code_(code),
      fi_errno_(fi_errno),
      message_(message.empty() ? nullptr
                               : std::make_unique<const std::string>(std::move(message))) {}

std::unique_ptr<const std::string> Status::copy_text(const std::string& text) {
  return std::make_unique<const std::string>(text);
}

const std::string& Status::message() const noexcept {
  static const std::string no_message;
  return message_ ? *message_ : no_message;
}

std::string Status::to_string() const {
  if (ok()) {
    return "ok";
  }
  std::string out(railyard::to_string(code_));
  if (message_) {
    out += ": ";
    out += *message_;
  }
  return out;
}

}  // namespace railyard
