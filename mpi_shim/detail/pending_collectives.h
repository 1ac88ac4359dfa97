// Non-blocking collectives railyard carries, as MPI requests. Each is an
// MPI generalized request (MPI_Grequest_start), so MPI keeps every request
// the program holds valid and frees it; the shim intercepts MPI's wait and
// test calls to move railyard's part on (a railyard collective moves only
// while it is tested or waited for) and completes the generalized request
// when railyard's finishes. A failed one goes through its communicator's
// error handler then, and its code comes back from the wait or test that
// completes it (MPI_ERR_IN_STATUS for the array forms). docs/mpi.md,
// "Non-blocking collectives".
#pragma once

#include <mpi.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "railyard/comm/request.h"
#include "railyard/mpi_shim/detail/error_codes.h"

namespace railyard::mpi_shim {

class PendingCollectives {
 public:
  static PendingCollectives& instance();

  // An MPI request for a started railyard collective on `comm`; `call`
  // names it in error reports. Throws MpiError when MPI refuses one.
  [[nodiscard]] MPI_Request adopt(comm::Request request, MPI_Comm comm, const char* call,
                                  const ErrorCodes& codes);

  // Whether no request of ours exists: MPI's waits and tests go straight
  // to PMPI.
  [[nodiscard]] bool none() const noexcept { return count_.load(std::memory_order_acquire) == 0; }
  [[nodiscard]] bool ours(MPI_Request request) const;

  // Tests each of ours among `requests` once, completing for MPI those
  // that finished. Returns how many of ours are still running.
  int step(std::span<const MPI_Request> requests);
  // Waits for one of ours to finish (railyard's blocking wait; MPI's
  // requests are not progressed meanwhile) and completes it for MPI.
  void finish(MPI_Request request);
  // Waits for every one of ours among `requests`, as finish().
  void finish_all(std::span<const MPI_Request> requests);
  // A finished request's MPI error code (MPI_SUCCESS unless it failed);
  // MPI_SUCCESS for a request not ours.
  [[nodiscard]] int code_of(MPI_Request request) const;

  // MPI_Finalize with requests still pending (an erroneous program):
  // railyard's parts are released to finish or fail in the background.
  void abandon_all() noexcept;

  // The generalized request's callbacks.
  static int query(void* state, MPI_Status* status);
  static int release(void* state);
  static int cancel(void* state, int complete);

 private:
  struct Pending {
    comm::Request request;
    MPI_Comm comm = MPI_COMM_NULL;
    const char* call = "";
    ErrorCodes codes;
    MPI_Request handle = MPI_REQUEST_NULL;
    bool done = false;
    int code = MPI_SUCCESS;
  };

  [[nodiscard]] Pending* find(MPI_Request request) const;
  // After railyard's request finished (or threw): the code, and MPI's
  // request completed.
  static void complete(Pending& pending, bool failed);
  void forget(Pending* pending);

  mutable std::mutex mutex_;
  std::map<MPI_Request, std::unique_ptr<Pending>> pending_;
  std::atomic<int> count_{0};
};

}  // namespace railyard::mpi_shim
