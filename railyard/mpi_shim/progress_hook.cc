#include "railyard/mpi_shim/detail/progress_hook.h"

#include <dlfcn.h>

#include "railyard/common/detail/log.h"

namespace railyard::mpi_shim {
namespace {

// opal_progress_register's and opal_progress_unregister's type in Open
// MPI's opal/runtime/opal_progress.h (OPAL_SUCCESS is 0).
using Register = int (*)(ProgressHook::Turn);

template <typename Function>
Function find(const char* name) noexcept {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): dlsym's void* is the function
  return reinterpret_cast<Function>(::dlsym(RTLD_DEFAULT, name));
}

}  // namespace

ProgressHook::ProgressHook(Turn turn) noexcept : turn_(turn) {
  const auto add = find<Register>("opal_progress_register");
  const auto remove = find<Unregister>("opal_progress_unregister");
  if (add == nullptr || remove == nullptr) {
    log::debug(
        "MPI shim: this MPI has no opal_progress_register: only the C waits and tests "
        "move railyard's non-blocking collectives on");
    return;
  }
  const int rc = add(turn_);
  if (rc != 0) {
    log::warn(
        "MPI shim: opal_progress_register failed ({}): only the C waits and tests move "
        "railyard's non-blocking collectives on",
        rc);
    return;
  }
  unregister_ = remove;
}

ProgressHook::~ProgressHook() {
  if (unregister_ != nullptr) {
    (void)unregister_(turn_);
  }
}

}  // namespace railyard::mpi_shim
