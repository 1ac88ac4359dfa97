#include "railyard/transports/mrail/request.h"

#include "railyard/transports/mrail/detail/endpoint_internal.h"

namespace railyard::mrail {

Request::Request() = default;
Request::~Request() {
  if (endpoint_ != nullptr) {
    endpoint_->abandon(*this);
  }
}

void Request::start(RequestKind kind, PeerId peer, std::byte* buffer, std::uint64_t capacity) {
  kind_ = kind;
  done_ = false;
  tagged_ = false;
  status_ = Status();
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
  endpoint_ = nullptr;
  done_ = true;
}

}  // namespace railyard::mrail
