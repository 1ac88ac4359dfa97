#include "railyard/mrail/detail/active_requests.h"

namespace railyard::mrail::detail {

void ActiveRequests::fail_all(const Status& status) noexcept {
  while (Request* request = active_.front()) {
    active_.erase(*request);
    request->fail(status);
    request->finish();
  }
}

}  // namespace railyard::mrail::detail
