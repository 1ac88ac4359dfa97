// The shim's pending collectives, moved on from inside MPI's own progress
// loop. Open MPI lets a library add a function that every turn of its
// progress engine calls (opal_progress_register; Open MPI's coll/ucc plugs
// UCC in the same way), so any MPI call that waits (MPI_Wait from Fortran,
// whose bindings call PMPI_Wait directly; MPI_Recv; a collective handed
// back to MPI) also moves railyard's collectives on and completes their
// generalized requests. Other MPIs have no such entry point: there the
// intercepted C waits (waits.cc) are the only way, and the Fortran
// non-blocking collectives stay with MPI (docs/mpi.md).
#pragma once

namespace railyard::mpi_shim {

class ProgressHook {
 public:
  // Adds `turn` to Open MPI's progress engine when this MPI is Open MPI
  // (found with dlsym); otherwise does nothing (active() is false).
  using Turn = int (*)();
  explicit ProgressHook(Turn turn) noexcept;
  // Takes it out again; MPI must still be working (inside MPI_Finalize).
  ~ProgressHook();
  ProgressHook(const ProgressHook&) = delete;
  ProgressHook& operator=(const ProgressHook&) = delete;
  ProgressHook(ProgressHook&&) = delete;
  ProgressHook& operator=(ProgressHook&&) = delete;

  [[nodiscard]] bool active() const noexcept { return unregister_ != nullptr; }

 private:
  using Unregister = int (*)(Turn);
  Turn turn_;
  Unregister unregister_ = nullptr;
};

}  // namespace railyard::mpi_shim
