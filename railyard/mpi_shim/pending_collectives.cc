#include "railyard/mpi_shim/detail/pending_collectives.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "railyard/common/detail/log.h"
#include "railyard/mpi_shim/detail/mpi_handles.h"

namespace railyard::mpi_shim {
namespace {

// Whether this thread holds PendingCollectives::turn_mutex_ further up its
// stack (MPI called back into the shim while it tested or completed).
thread_local bool t_in_turn = false;

// This thread's turn at the requests: turn_mutex_ taken (waiting for it or
// only trying), or held already further up this thread's stack.
class Turn {
 public:
  enum class Mode : std::uint8_t { kWait, kTry };
  Turn(std::mutex& mutex, Mode mode) {
    if (t_in_turn) {
      nested_ = true;
      return;
    }
    lock_ = std::unique_lock(mutex, std::defer_lock);
    if (mode == Mode::kWait) {
      lock_.lock();
    } else if (!lock_.try_lock()) {
      return;
    }
    t_in_turn = true;
  }
  ~Turn() {
    if (lock_.owns_lock()) {
      t_in_turn = false;
    }
  }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  Turn(Turn&&) = delete;
  Turn& operator=(Turn&&) = delete;

  [[nodiscard]] bool held() const noexcept { return nested_ || lock_.owns_lock(); }

 private:
  std::unique_lock<std::mutex> lock_;
  bool nested_ = false;
};

}  // namespace

PendingCollectives& PendingCollectives::instance() {
  (void)log::level();  // the logger outlives the requests (see Shim::instance)
  static PendingCollectives pending;
  return pending;
}

MPI_Request PendingCollectives::adopt(comm::Request request, MPI_Comm comm, const char* call,
                                      const ErrorCodes& codes) {
  auto pending = std::make_unique<Pending>();
  pending->request = std::move(request);
  pending->comm = comm;
  pending->call = call;
  pending->codes = codes;
  MPI_Request handle = MPI_REQUEST_NULL;
  check_mpi(PMPI_Grequest_start(&PendingCollectives::query, &PendingCollectives::release,
                                &PendingCollectives::cancel, pending.get(), &handle),
            "MPI_Grequest_start");
  pending->handle = handle;
  {
    const std::scoped_lock lock(mutex_);
    pending_.emplace(handle, std::move(pending));
  }
  count_.fetch_add(1, std::memory_order_release);
  return handle;
}

PendingCollectives::Pending* PendingCollectives::find(MPI_Request request) const {
  if (request == MPI_REQUEST_NULL) {
    return nullptr;
  }
  const std::scoped_lock lock(mutex_);
  const auto found = pending_.find(request);
  return found == pending_.end() ? nullptr : found->second.get();
}

bool PendingCollectives::ours(MPI_Request request) const { return find(request) != nullptr; }

void PendingCollectives::complete(Pending& pending, bool failed) {
  if (failed) {
    pending.code = report_failure(pending.codes, pending.comm, pending.call);
  }
  pending.done = true;
  const char* call = pending.call;
  // Last use of `pending`: MPI may free it as it completes.
  const int rc = PMPI_Grequest_complete(pending.handle);
  if (rc != MPI_SUCCESS) {
    log::error("MPI shim: MPI_Grequest_complete for {} failed: {}", call, mpi_error_text(rc));
  }
}

bool PendingCollectives::test_once(Pending& pending) {
  try {
    if (!pending.request.test()) {
      return false;
    }
  } catch (...) {
    complete(pending, true);
    return true;
  }
  complete(pending, false);
  return true;
}

int PendingCollectives::step(std::span<const MPI_Request> requests) {
  const Turn turn(turn_mutex_, Turn::Mode::kTry);
  int running = 0;
  for (MPI_Request request : requests) {
    Pending* pending = find(request);
    if (pending == nullptr) {
      continue;
    }
    if (!turn.held()) {
      ++running;  // another thread's turn; its state is not ours to read
      continue;
    }
    if (!pending->done && !test_once(*pending)) {
      ++running;
    }
  }
  return running;
}

int PendingCollectives::poll() noexcept {
  if (none() || t_in_turn) {
    return 0;
  }
  try {
    const Turn turn(turn_mutex_, Turn::Mode::kTry);
    if (!turn.held()) {
      return 0;  // that thread's turn moves them on
    }
    {
      const std::scoped_lock lock(mutex_);
      polled_.clear();
      for (const auto& [handle, pending] : pending_) {
        if (!pending->done) {
          polled_.push_back(handle);
        }
      }
    }
    int completed = 0;
    for (MPI_Request handle : polled_) {
      Pending* pending = find(handle);  // a completion before may have freed it
      if (pending != nullptr && !pending->done && test_once(*pending)) {
        ++completed;
      }
    }
    return completed;
  } catch (const std::exception& error) {
    log::error("MPI shim: moving railyard's non-blocking collectives on failed: {}", error.what());
    return 0;
  }
}

int PendingCollectives::progress_turn() noexcept { return instance().poll(); }

void PendingCollectives::finish(MPI_Request request) {
  const Turn turn(turn_mutex_, Turn::Mode::kWait);
  Pending* pending = find(request);
  if (pending == nullptr || pending->done) {
    return;
  }
  try {
    pending->request.wait();
    complete(*pending, false);
  } catch (...) {
    complete(*pending, true);
  }
}

void PendingCollectives::finish_all(std::span<const MPI_Request> requests) {
  for (MPI_Request request : requests) {
    finish(request);
  }
}

int PendingCollectives::code_of(MPI_Request request) const {
  const Pending* pending = find(request);
  return pending == nullptr ? MPI_SUCCESS : pending->code;
}

int PendingCollectives::query(void* /*state*/, MPI_Status* status) {
  // A collective's status says nothing but that it is not cancelled; its
  // error, if any, comes back from the wait or test (waits.cc).
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  return MPI_SUCCESS;
}

int PendingCollectives::release(void* state) {
  instance().forget(static_cast<Pending*>(state));
  return MPI_SUCCESS;
}

int PendingCollectives::cancel(void* /*state*/, int /*complete*/) {
  // A collective cannot be cancelled (MPI-3.1 section 5.12): nothing to do.
  return MPI_SUCCESS;
}

void PendingCollectives::abandon_all() noexcept {
  const Turn turn(turn_mutex_, Turn::Mode::kWait);
  const std::scoped_lock lock(mutex_);
  for (auto& [handle, pending] : pending_) {
    if (!pending->done) {
      log::warn("MPI shim: {} was still pending at MPI_Finalize", pending->call);
      pending->request.release();
    }
  }
}

void PendingCollectives::forget(Pending* pending) {
  // Not while another thread tests it.
  const Turn turn(turn_mutex_, Turn::Mode::kWait);
  std::unique_ptr<Pending> gone;
  {
    const std::scoped_lock lock(mutex_);
    const auto found = pending_.find(pending->handle);
    if (found == pending_.end()) {
      return;
    }
    gone = std::move(found->second);
    pending_.erase(found);
  }
  count_.fetch_sub(1, std::memory_order_release);
  // MPI_Request_free of one still running (erroneous for a collective, but
  // possible): railyard finishes it in the background.
  if (!gone->done) {
    gone->request.release();
  }
}

}  // namespace railyard::mpi_shim
