// Non-blocking collectives railyard carries, as MPI requests. Each is an
// MPI generalized request (MPI_Grequest_start), so MPI keeps every request
// the program holds valid and frees it. A railyard collective moves only
// while it is tested or waited for: the shim intercepts MPI's C wait and
// test calls to do that, and under Open MPI also moves them on from MPI's
// progress engine (progress_hook.h), which every waiting MPI call turns
// (Fortran's waits too). The generalized request is completed when
// railyard's finishes. A failed one goes through its communicator's
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
#include <vector>

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
  // that finished. Returns how many of ours are still running (all of
  // them when another thread is testing or waiting for ours just then:
  // its turn moves these on too).
  int step(std::span<const MPI_Request> requests);
  // The progress engine's turn: tests every one of ours once, unless a
  // turn is under way in any thread. Returns how many it completed.
  int poll() noexcept;
  // poll() for opal_progress_register.
  static int progress_turn() noexcept;
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
  // request completed. `pending` may be gone when it returns (MPI frees a
  // request the program freed early as it completes).
  static void complete(Pending& pending, bool failed);
  // Tests `pending` once; whether it completed.
  static bool test_once(Pending& pending);
  void forget(Pending* pending);

  // Held by the thread testing, waiting for or forgetting requests of
  // ours (a turn), so a Pending is neither completed twice nor freed while
  // another thread tests it. MPI can call back into the shim on the
  // thread holding it (an error handler, a request freed as it completes),
  // so that thread takes no lock twice (in_turn()).
  std::mutex turn_mutex_;
  // The requests; a Pending is used only under turn_mutex_.
  mutable std::mutex mutex_;
  std::map<MPI_Request, std::unique_ptr<Pending>> pending_;
  std::vector<MPI_Request> polled_;  // poll()'s list, kept to spare an allocation a turn
  std::atomic<int> count_{0};
};

}  // namespace railyard::mpi_shim
