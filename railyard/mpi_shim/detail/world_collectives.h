// The bootstrap's view of an MPI communicator (MPI_COMM_WORLD for the
// shim's world, any for railyard_comm_init_mpi): its allgathers, on a
// duplicate of the shim's own, in rounds that also say whether every
// rank is still building. A rank that fails to build its part of the
// railyard world (its rails would not open, say) must not leave the others
// waiting in an MPI collective it will never call: it calls fail_rounds(),
// whose rounds meet the others' next ones, and they fail too, so every rank
// returns from MPI_Init with the shim off instead of hanging.
// docs/mpi.md, "Start and end".
#pragma once

#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include "railyard/bootstrap/mpi_bootstrap.h"
#include "railyard/mpi_shim/detail/mpi_handles.h"

namespace railyard::mpi_shim {

// Outlives the railyard world it serves: the shim keeps it, and the
// bootstrap gets a view of it (bootstrap_view), so a world that fails to
// build leaves it behind for fail_rounds().
class WorldCollectives {
 public:
  // Duplicates `parent` (MPI_COMM_WORLD for the shim's world). Throws
  // MpiError.
  explicit WorldCollectives(MPI_Comm parent = MPI_COMM_WORLD);

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  // One round: every rank's length and state, then (when all are well)
  // their bytes. Throws RemoteError naming a rank that reports a failure,
  // Error when MPI is down, MpiError when an MPI call fails.
  [[nodiscard]] std::vector<bootstrap::Blob> allgather(std::span<const std::byte> mine);
  void abort(int code) noexcept;

  // Rounds that report this rank failed, until every rank does: called by
  // a rank that gave up building the world, and by the others once they
  // learn of it.
  void fail_rounds() noexcept;
  // From here on every round throws at once: MPI is gone or going (the
  // program ended without MPI_Finalize), and the world leaves alone.
  void detach() noexcept { detached_.store(true); }

 private:
  // Each rank's (state, length) in rank order.
  [[nodiscard]] std::vector<int> exchange_states(int state, int length) const;

  OwnedComm comm_;
  int rank_ = 0;
  int size_ = 0;
  std::atomic<bool> detached_{false};
};

// What the bootstrap holds: the shared collectives.
[[nodiscard]] std::unique_ptr<bootstrap::MpiCollectives> bootstrap_view(
    std::shared_ptr<WorldCollectives> collectives);

}  // namespace railyard::mpi_shim
