#include "railyard/fabric/fid_handle.h"

#include <rdma/fi_errno.h>

#include "railyard/common/detail/log.h"

namespace railyard::fabric {

void close_fid(fid* handle, const char* what) noexcept {
  const int rc = fi_close(handle);
  if (rc != 0) {
    log::warn("fi_close({}) failed: {} ({})", what, fi_strerror(-rc), rc);
  }
}

}  // namespace railyard::fabric
