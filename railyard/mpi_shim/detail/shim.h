// The MPI shim's state in one process: its options, the railyard world
// built over MPI_COMM_WORLD, the railyard communicator behind each MPI
// communicator (found through an attribute, built at its first collective),
// and the error codes. docs/mpi.md.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "railyard/comm/communicator.h"
#include "railyard/mpi_shim/detail/error_codes.h"
#include "railyard/mpi_shim/detail/mpi_handles.h"
#include "railyard/mpi_shim/detail/mpi_types.h"
#include "railyard/mpi_shim/detail/progress_hook.h"
#include "railyard/mpi_shim/detail/shim_options.h"
#include "railyard/mpi_shim/detail/world_collectives.h"

namespace railyard::mpi_shim {

class Shim {
 public:
  // The process's one shim.
  static Shim& instance();
  // A turn of MPI's progress engine (progress_hook.h): the sends a carried
  // collective left in the provider's hands (a bcast's root returns once its
  // data is copied out, then waits in MPI), then the pending non-blocking
  // collectives. Without it, a root waiting in MPI leaves its receivers to
  // the background thread, or with RAILYARD_BACKGROUND_PROGRESS=0 to wait
  // for its next carried call.
  static int progress_turn() noexcept;

  Shim() = default;
  // A program that ends without MPI_Finalize: the world leaves without MPI.
  ~Shim();
  Shim(const Shim&) = delete;
  Shim& operator=(const Shim&) = delete;
  Shim(Shim&&) = delete;
  Shim& operator=(Shim&&) = delete;

  // The second half of MPI_Init (after PMPI_Init): reads the options and
  // builds the railyard world. Returns MPI_SUCCESS, or the code of a bad
  // variable after MPI_COMM_WORLD's error handler had it. A world that
  // cannot be built leaves every collective to MPI, with a warning.
  int start() noexcept;
  // Inside MPI_Finalize, while MPI still works: every railyard
  // communicator and the world go.
  void stop() noexcept;

  [[nodiscard]] const ShimOptions& options() const noexcept { return options_; }
  [[nodiscard]] const ErrorCodes& error_codes() const noexcept { return codes_; }
  [[nodiscard]] bool takes(MpiCollective collective) const noexcept {
    return started_ && options_.takes(collective);
  }
  // Whether MPI's progress engine moves railyard's non-blocking
  // collectives on (Open MPI), so a wait that bypasses the C wrappers
  // (Fortran's) completes them too.
  [[nodiscard]] bool progress_hooked() const noexcept {
    return progress_hook_ && progress_hook_->active();
  }

  // The railyard communicator that carries a collective of `which` moving
  // `bytes` (or declined already for its datatypes) on `comm`, or nullopt
  // when the call goes to MPI (said once per call site and reason at
  // RAILYARD_MPI_VERBOSE=2). Collective over `comm` the first time:
  // every rank of it decides the same for the same call.
  // `call` names the MPI function. The communicator stays valid until
  // MPI_Comm_free of `comm` or MPI_Finalize.
  [[nodiscard]] const comm::Communicator* route(MpiCollective which, const char* call,
                                                MPI_Comm comm,
                                                const std::variant<std::size_t, Declined>& bytes,
                                                const void* call_site);

  // A non-blocking collective railyard carries has started (counted apart
  // in the totals at MPI_Finalize).
  void note_nonblocking(MpiCollective which) noexcept {
    nonblocking_[static_cast<std::size_t>(which)].fetch_add(1, std::memory_order_relaxed);
  }

  // The attribute delete callbacks.
  void forget(const void* entry) noexcept;

 private:
  struct CommEntry {
    std::optional<comm::Communicator> communicator;
    std::string declined;  // why not, when there is none
  };

  // route() without the count.
  [[nodiscard]] const comm::Communicator* choose(MpiCollective which, const char* call,
                                                 MPI_Comm comm,
                                                 const std::variant<std::size_t, Declined>& bytes,
                                                 const void* call_site);
  // comm's entry, made at first use (collective over comm).
  [[nodiscard]] const CommEntry& entry_for(MPI_Comm comm);
  [[nodiscard]] CommEntry build_entry(MPI_Comm comm);
  void build_world(const comm::CommunicatorOptions& options, std::chrono::milliseconds timeout);
  void say_started() const;
  // RAILYARD_MPI_VERBOSE=1: what went where, per collective, at MPI_Finalize.
  void say_totals() const;
  void report_declined(const char* call, const void* call_site, std::string_view reason);

  bool started_ = false;
  ShimOptions options_;
  ErrorCodes codes_;
  std::shared_ptr<WorldCollectives> world_collectives_;
  std::optional<comm::Communicator> world_;
  CommEntry world_entry_;  // MPI_COMM_WORLD's: the world, or why there is none
  std::string refused_;    // a setting that fails MPI_Init (build_world)
  std::optional<CommKeyval> comm_keyval_;
  std::optional<CommKeyval> self_keyval_;
  std::optional<ProgressHook> progress_hook_;  // while the world exists
  std::mutex mutex_;                           // the entries and the reports
  std::map<const void*, std::unique_ptr<CommEntry>> entries_;
  std::set<std::pair<const void*, std::string>> reported_;
  // Calls railyard carried and calls handed to MPI, per collective.
  std::array<std::atomic<std::uint64_t>, kAllMpiCollectives.size()> carried_{};
  std::array<std::atomic<std::uint64_t>, kAllMpiCollectives.size()> handed_back_{};
  // Of the carried calls, the non-blocking ones.
  std::array<std::atomic<std::uint64_t>, kAllMpiCollectives.size()> nonblocking_{};
};

}  // namespace railyard::mpi_shim
