// Every request an endpoint has started and not finished, so that closing
// it can fail them, and the one way a request finishes.
#pragma once

#include "railyard/common/intrusive_list.h"
#include "railyard/common/status.h"
#include "railyard/mrail/request.h"

namespace railyard::mrail {
class Endpoint;
}  // namespace railyard::mrail

namespace railyard::mrail::detail {

class ActiveRequests {
 public:
  explicit ActiveRequests(Endpoint& endpoint) noexcept : endpoint_(&endpoint) {}

  // Takes a started request in; its destructor then reaches the endpoint.
  void track(Request& request) noexcept {
    active_.push_back(request);
    request.endpoint_ = endpoint_;
  }
  // Done, well or not (its status says): the caller may reuse it.
  void finish(Request& request) noexcept {
    active_.erase(request);
    request.finish();
  }
  // Fails and finishes every request still in flight (closing).
  void fail_all(const Status& status) noexcept;

 private:
  Endpoint* endpoint_;
  IntrusiveList<Request, &Request::active_hook_> active_;
};

}  // namespace railyard::mrail::detail
