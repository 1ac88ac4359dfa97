#include "railyard/common/status.h"

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

std::string Status::to_string() const {
  if (ok()) {
    return "ok";
  }
  std::string out(railyard::to_string(code_));
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

}  // namespace railyard
