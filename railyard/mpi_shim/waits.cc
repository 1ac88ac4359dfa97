// MPI's waits and tests, intercepted so that the non-blocking collectives
// railyard carries move on and complete (pending_collectives.h). With none
// of ours among the requests (always, for a program that starts none) each
// goes straight to PMPI. With ours and MPI's mixed, ours are tested and
// MPI's progressed by the PMPI test form in turns, backing off from a spin
// to sleeps so that waiting ranks leave the cores to the others.
#include <mpi.h>
#include <sched.h>

#include <chrono>
#include <span>
#include <thread>
#include <vector>

#include "railyard/mpi_shim/detail/pending_collectives.h"

namespace railyard::mpi_shim {
namespace {

class Backoff {
 public:
  void pause() {
    ++rounds_;
    if (rounds_ < kSpins) {
      return;
    }
    if (rounds_ < kYields) {
      sched_yield();
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }

 private:
  static constexpr int kSpins = 64;
  static constexpr int kYields = 2000;
  int rounds_ = 0;
};

// The requests of one wait or test call as they were on entry (PMPI sets
// the completed ones to MPI_REQUEST_NULL) and the codes of ours.
class Tracked {
 public:
  explicit Tracked(std::span<const MPI_Request> requests)
      : handles_(requests.begin(), requests.end()), codes_(requests.size(), MPI_SUCCESS) {
    const PendingCollectives& pending = PendingCollectives::instance();
    for (MPI_Request request : handles_) {
      if (request == MPI_REQUEST_NULL) {
        continue;
      }
      (pending.ours(request) ? any_ours_ : any_theirs_) = true;
    }
  }

  [[nodiscard]] bool any_ours() const noexcept { return any_ours_; }
  [[nodiscard]] bool any_theirs() const noexcept { return any_theirs_; }

  // Tests ours once; records the codes of those that finished.
  void step() {
    PendingCollectives& pending = PendingCollectives::instance();
    (void)pending.step(handles_);
    record();
  }
  // Waits for all of ours.
  void finish_all() {
    PendingCollectives::instance().finish_all(handles_);
    record();
  }
  [[nodiscard]] int code(std::size_t index) const { return codes_.at(index); }

 private:
  void record() {
    const PendingCollectives& pending = PendingCollectives::instance();
    for (std::size_t i = 0; i < handles_.size(); ++i) {
      if (codes_[i] == MPI_SUCCESS) {
        codes_[i] = pending.code_of(handles_[i]);
      }
    }
  }

  std::vector<MPI_Request> handles_;
  std::vector<int> codes_;
  bool any_ours_ = false;
  bool any_theirs_ = false;
};

// The array forms' answer when some of ours failed: each status's error
// and MPI_ERR_IN_STATUS (MPI-3.1 section 3.7.5). The statuses of MPI's own
// requests keep what PMPI set; when PMPI reported success it set none, so
// theirs get MPI_SUCCESS.
int with_errors(const Tracked& tracked, std::span<const int> completed, MPI_Status* statuses,
                int rc) {
  bool failed = false;
  for (const int index : completed) {
    failed = failed || tracked.code(static_cast<std::size_t>(index)) != MPI_SUCCESS;
  }
  if (!failed) {
    return rc;
  }
  if (statuses != MPI_STATUSES_IGNORE) {
    for (std::size_t k = 0; k < completed.size(); ++k) {
      const int code = tracked.code(static_cast<std::size_t>(completed[k]));
      if (code != MPI_SUCCESS || rc == MPI_SUCCESS) {
        statuses[k].MPI_ERROR = code;  // NOLINT: MPI's status array
      }
    }
  }
  return MPI_ERR_IN_STATUS;
}

std::vector<int> first_n(int count) {
  std::vector<int> indices(static_cast<std::size_t>(count < 0 ? 0 : count));
  for (std::size_t i = 0; i < indices.size(); ++i) {
    indices[i] = static_cast<int>(i);
  }
  return indices;
}

int single_result(int code, MPI_Status* status, int rc) {
  if (code == MPI_SUCCESS) {
    return rc;
  }
  if (status != MPI_STATUS_IGNORE) {
    status->MPI_ERROR = code;
  }
  return code;
}

}  // namespace
}  // namespace railyard::mpi_shim

using railyard::mpi_shim::Backoff;
using railyard::mpi_shim::PendingCollectives;
using railyard::mpi_shim::Tracked;

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  PendingCollectives& pending = PendingCollectives::instance();
  if (pending.none() || !pending.ours(*request)) {
    return PMPI_Wait(request, status);
  }
  MPI_Request handle = *request;  // NOLINT(misc-const-correctness): a handle, not const data
  pending.finish(handle);
  const int code = pending.code_of(handle);  // before PMPI frees it
  return railyard::mpi_shim::single_result(code, status, PMPI_Wait(request, status));
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  PendingCollectives& pending = PendingCollectives::instance();
  if (pending.none() || !pending.ours(*request)) {
    return PMPI_Test(request, flag, status);
  }
  MPI_Request handle = *request;  // NOLINT(misc-const-correctness): a handle, not const data
  (void)pending.step(std::span(&handle, 1));
  const int code = pending.code_of(handle);
  const int rc = PMPI_Test(request, flag, status);
  return *flag != 0 ? railyard::mpi_shim::single_result(code, status, rc) : rc;
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  PendingCollectives& pending = PendingCollectives::instance();
  if (!pending.none() && pending.ours(request)) {
    (void)pending.step(std::span(&request, 1));
    const int code = pending.code_of(request);
    const int rc = PMPI_Request_get_status(request, flag, status);
    return *flag != 0 ? railyard::mpi_shim::single_result(code, status, rc) : rc;
  }
  return PMPI_Request_get_status(request, flag, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (PendingCollectives::instance().none() || count <= 0) {
    return PMPI_Waitall(count, requests, statuses);
  }
  Tracked tracked(std::span(requests, static_cast<std::size_t>(count)));
  if (!tracked.any_ours()) {
    return PMPI_Waitall(count, requests, statuses);
  }
  int rc = MPI_SUCCESS;
  if (!tracked.any_theirs()) {
    tracked.finish_all();
    rc = PMPI_Waitall(count, requests, statuses);
  } else {
    Backoff backoff;
    while (true) {
      tracked.step();
      int flag = 0;
      rc = PMPI_Testall(count, requests, &flag, statuses);
      if (rc != MPI_SUCCESS || flag != 0) {
        break;
      }
      backoff.pause();
    }
  }
  const std::vector<int> all = railyard::mpi_shim::first_n(count);
  return railyard::mpi_shim::with_errors(tracked, all, statuses, rc);
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (PendingCollectives::instance().none() || count <= 0) {
    return PMPI_Testall(count, requests, flag, statuses);
  }
  Tracked tracked(std::span(requests, static_cast<std::size_t>(count)));
  tracked.step();
  const int rc = PMPI_Testall(count, requests, flag, statuses);
  if (*flag == 0) {
    return rc;
  }
  const std::vector<int> all = railyard::mpi_shim::first_n(count);
  return railyard::mpi_shim::with_errors(tracked, all, statuses, rc);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (PendingCollectives::instance().none() || count <= 0) {
    return PMPI_Waitany(count, requests, index, status);
  }
  Tracked tracked(std::span(requests, static_cast<std::size_t>(count)));
  if (!tracked.any_ours()) {
    return PMPI_Waitany(count, requests, index, status);
  }
  Backoff backoff;
  int rc = MPI_SUCCESS;
  while (true) {
    tracked.step();
    int flag = 0;
    rc = PMPI_Testany(count, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag != 0) {
      break;
    }
    backoff.pause();
  }
  if (*index == MPI_UNDEFINED) {
    return rc;
  }
  return railyard::mpi_shim::single_result(tracked.code(static_cast<std::size_t>(*index)), status,
                                           rc);
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (PendingCollectives::instance().none() || count <= 0) {
    return PMPI_Testany(count, requests, index, flag, status);
  }
  Tracked tracked(std::span(requests, static_cast<std::size_t>(count)));
  tracked.step();
  const int rc = PMPI_Testany(count, requests, index, flag, status);
  if (*flag == 0 || *index == MPI_UNDEFINED) {
    return rc;
  }
  return railyard::mpi_shim::single_result(tracked.code(static_cast<std::size_t>(*index)), status,
                                           rc);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (PendingCollectives::instance().none() || incount <= 0) {
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  }
  Tracked tracked(std::span(requests, static_cast<std::size_t>(incount)));
  if (!tracked.any_ours()) {
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  }
  Backoff backoff;
  int rc = MPI_SUCCESS;
  while (true) {
    tracked.step();
    rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) {
      break;
    }
    backoff.pause();
  }
  if (*outcount == MPI_UNDEFINED) {
    return rc;
  }
  return railyard::mpi_shim::with_errors(
      tracked, std::span(indices, static_cast<std::size_t>(*outcount)), statuses, rc);
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (PendingCollectives::instance().none() || incount <= 0) {
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  }
  Tracked tracked(std::span(requests, static_cast<std::size_t>(incount)));
  tracked.step();
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
  if (*outcount == MPI_UNDEFINED || *outcount == 0) {
    return rc;
  }
  return railyard::mpi_shim::with_errors(
      tracked, std::span(indices, static_cast<std::size_t>(*outcount)), statuses, rc);
}

}  // extern "C"
