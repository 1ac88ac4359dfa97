// Bootstrap through the launcher's PMIx server (Open MPI's mpirun, Slurm's
// srun --mpi=pmix, PRRTE): no variable is needed. Each rank puts its
// descriptor, and a fence with data collection gives every rank all of
// them, as MPI libraries exchange their addresses; no rank serves the
// others, so it scales with the launcher. Rank, job size and local
// rank/size are PMIx keys. The store is PMIx's publish/lookup (a get
// retries the lookup until the key is there or its timeout passes). abort() is PMIx_Abort: the
// launcher ends the job. docs/architecture.md, "Bootstrap".
#pragma once

#include <memory>
#include <span>
#include <string>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/bootstrap/bootstrap_options.h"

namespace railyard::bootstrap {

class PmixBootstrap final : public Bootstrap {
 public:
  // Joins the job through its PMIx server. Returns nullptr when no server
  // answers (the process was not started by a PMIx launcher), so a caller
  // can try another method. Throws Error naming the PMIx call that failed
  // otherwise, TimeoutError when the descriptors' fence times out.
  [[nodiscard]] static std::unique_ptr<PmixBootstrap> connect(std::span<const std::byte> descriptor,
                                                              const BootstrapOptions& options);
  ~PmixBootstrap() override;
  PmixBootstrap(const PmixBootstrap&) = delete;
  PmixBootstrap& operator=(const PmixBootstrap&) = delete;
  PmixBootstrap(PmixBootstrap&&) = delete;
  PmixBootstrap& operator=(PmixBootstrap&&) = delete;

  [[nodiscard]] int rank() const noexcept override;
  [[nodiscard]] int size() const noexcept override;
  [[nodiscard]] const char* method() const noexcept override { return "pmix"; }
  [[nodiscard]] const std::vector<Blob>& descriptors() const noexcept override;
  // This rank's place among the job's ranks on its node, from PMIx.
  [[nodiscard]] unsigned local_rank() const noexcept;
  [[nodiscard]] unsigned local_size() const noexcept;

  [[nodiscard]] std::vector<Blob> allgather(std::span<const std::byte> mine,
                                            std::chrono::milliseconds timeout) override;
  [[nodiscard]] Blob broadcast(int root, std::span<const std::byte> data,
                               std::chrono::milliseconds timeout) override;
  void barrier(std::chrono::milliseconds timeout) override;
  void abort(int code, const std::string& reason) noexcept override;
  // The launcher ends a PMIx job whose rank dies or aborts (mpirun's and
  // srun's default), and fences fail: nothing to report here.
  [[nodiscard]] std::optional<JobFailure> failure() const override { return std::nullopt; }
  [[nodiscard]] Store& store() override;

 private:
  struct Session;
  class PmixStore;

  explicit PmixBootstrap(std::unique_ptr<Session> session);

  std::unique_ptr<Session> session_;
  std::unique_ptr<PmixStore> store_;
};

}  // namespace railyard::bootstrap
