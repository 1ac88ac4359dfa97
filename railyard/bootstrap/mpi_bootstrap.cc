#include "railyard/bootstrap/mpi_bootstrap.h"

#include <fmt/format.h>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap {

MpiBootstrap::MpiBootstrap(std::unique_ptr<MpiCollectives> mpi,
                           std::span<const std::byte> descriptor)
    : mpi_(std::move(mpi)) {
  if (!mpi_) {
    throw UsageError("MpiBootstrap needs the MPI communicator's collectives; got none");
  }
  rank_ = mpi_->rank();
  size_ = mpi_->size();
  if (size_ < 1 || rank_ < 0 || rank_ >= size_) {
    throw UsageError(fmt::format("MPI communicator reports rank {} of size {}", rank_, size_));
  }
  descriptors_ = allgather(descriptor, {});
}

std::vector<Blob> MpiBootstrap::allgather(std::span<const std::byte> mine,
                                          std::chrono::milliseconds /*timeout*/) {
  std::vector<Blob> all = mpi_->allgather(mine);
  if (all.size() != static_cast<std::size_t>(size_)) {
    throw UsageError(
        fmt::format("MPI allgather returned {} entries for {} ranks", all.size(), size_));
  }
  return all;
}

Blob MpiBootstrap::broadcast(int root, std::span<const std::byte> data,
                             std::chrono::milliseconds timeout) {
  if (root < 0 || root >= size_) {
    throw UsageError(fmt::format("broadcast root {} is not a rank of {}", root, size_));
  }
  // Setup-sized data: an allgather where only the root contributes is one
  // MPI call and needs nothing more from the callbacks.
  std::vector<Blob> all = allgather(rank_ == root ? data : std::span<const std::byte>{}, timeout);
  return std::move(all[static_cast<std::size_t>(root)]);
}

void MpiBootstrap::abort(int code, const std::string& reason) noexcept {
  log::error("rank {} aborts the job with code {}: {}", rank_, code, reason);
  mpi_->abort(code);
}

Store& MpiBootstrap::store() {
  throw UsageError(
      "the mpi bootstrap has no key-value store (MPI offers none a rank can wait on alone); "
      "use RAILYARD_BOOTSTRAP=root or pmix for one");
}

}  // namespace railyard::bootstrap
