#include "railyard/mrail/request.h"

#include "railyard/mrail/detail/large_transfer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {

const char* to_string(RequestKind kind) noexcept {
  switch (kind) {
    case RequestKind::kSend:
      return "send";
    case RequestKind::kRecv:
      return "receive";
    case RequestKind::kPut:
      return "put";
    case RequestKind::kGet:
      return "get";
    case RequestKind::kFlush:
      return "flush";
    case RequestKind::kIdle:
      break;
  }
  return "idle";
}

Request::Request() = default;
Request::~Request() {
  // done() first: the endpoint's background thread may be finishing the
  // request right now, and abandon() checks again under the endpoint's lock.
  if (endpoint_ != nullptr && !done()) {
    endpoint_->abandon(*this);
  }
}

void Request::start(RequestKind kind, PeerId peer, std::byte* buffer, std::uint64_t capacity) {
  kind_ = kind;
  done_.store(false, std::memory_order_relaxed);
  endpoint_ = nullptr;  // set by the endpoint that tracks it
  tagged_ = false;
  if (!status_.ok()) {
    status_ = Status();  // only a failure has anything to clear
  }
  peer_ = peer;
  tag_ = 0;
  ignore_ = 0;
  buffer_ = buffer;
  capacity_ = capacity;
  length_ = 0;
  message_length_ = 0;
  pending_ = 0;
  large_.reset();
}

void Request::fail(const Status& status) {
  if (status_.ok()) {
    status_ = status;
  }
}

void Request::finish() {
  large_.reset();
  done_.store(true, std::memory_order_release);
}

}  // namespace railyard::mrail
