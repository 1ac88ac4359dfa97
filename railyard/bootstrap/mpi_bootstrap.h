// Bootstrap over an MPI communicator the caller already has (the MPI shim's
// MPI_COMM_WORLD), as Gloo's MPI context does. comm/ never links MPI: the
// caller supplies its collectives through MpiCollectives, a few lines of
// MPI_Allgather/MPI_Allgatherv/MPI_Abort (tests/comm/mpi_bootstrap_job.cc
// has one). docs/architecture.md, "Bootstrap".
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "railyard/bootstrap/bootstrap.h"

namespace railyard::bootstrap {

// What an MPI communicator offers the bootstrap. Calls come from the thread
// that made the bootstrap, in the same order on every rank (MPI's rule for
// collectives).
class MpiCollectives {
 public:
  MpiCollectives() = default;
  virtual ~MpiCollectives() = default;
  MpiCollectives(const MpiCollectives&) = delete;
  MpiCollectives& operator=(const MpiCollectives&) = delete;
  MpiCollectives(MpiCollectives&&) = delete;
  MpiCollectives& operator=(MpiCollectives&&) = delete;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // Every rank's bytes in rank order; ranks may give different lengths.
  // Throws Error naming the MPI call that failed.
  [[nodiscard]] virtual std::vector<Blob> allgather(std::span<const std::byte> mine) = 0;
  // Ends the job (MPI_Abort). Never throws.
  virtual void abort(int code) noexcept = 0;
};

class MpiBootstrap final : public Bootstrap {
 public:
  // Gathers every rank's descriptor over `mpi`. Throws UsageError when `mpi`
  // is null or its rank and size are inconsistent, and what its allgather
  // throws.
  MpiBootstrap(std::unique_ptr<MpiCollectives> mpi, std::span<const std::byte> descriptor);

  [[nodiscard]] int rank() const noexcept override { return rank_; }
  [[nodiscard]] int size() const noexcept override { return size_; }
  [[nodiscard]] const char* method() const noexcept override { return "mpi"; }
  [[nodiscard]] const std::vector<Blob>& descriptors() const noexcept override {
    return descriptors_;
  }

  // MPI collectives take no timeout: these wait as long as MPI does, and
  // MPI's error handling decides what a dead rank does to them.
  [[nodiscard]] std::vector<Blob> allgather(std::span<const std::byte> mine,
                                            std::chrono::milliseconds timeout) override;
  [[nodiscard]] Blob broadcast(int root, std::span<const std::byte> data,
                               std::chrono::milliseconds timeout) override;
  // Logs the reason, then MPI_Abort: MPI ends the job.
  void abort(int code, const std::string& reason) noexcept override;
  // MPI ends a job whose rank dies or aborts: nothing to report here.
  [[nodiscard]] std::optional<JobFailure> failure() const override { return std::nullopt; }
  // MPI offers no store a rank can wait on without the others taking part:
  // throws UsageError. The Communicator needs only the collectives.
  [[nodiscard]] Store& store() override;

 private:
  std::unique_ptr<MpiCollectives> mpi_;
  int rank_ = 0;
  int size_ = 0;
  std::vector<Blob> descriptors_;
};

}  // namespace railyard::bootstrap
