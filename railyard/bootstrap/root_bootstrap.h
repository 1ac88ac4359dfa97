// Bootstrap through a root rank, as NCCL's unique id: rank 0 listens at
// BootstrapOptions::root, every other rank connects (retrying until the
// timeout) and presents the job key, its rank, the job size and its
// descriptor; once all are in, the root sends each the table of
// descriptors. A connection with the wrong key, version or size, or a rank
// out of range or already taken, is refused and logged, and the job goes
// on without it. The channels stay open as the job's control plane: store
// requests, collectives, aborts and the news that a rank's connection broke
// all travel over them, served by one thread per rank.
// docs/architecture.md ("Bootstrap"), docs/wire-formats.md.
#pragma once

#include <memory>
#include <span>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/bootstrap/bootstrap_options.h"

namespace railyard::rstream {
class Listener;
}

namespace railyard::bootstrap {

namespace detail {
struct RootState;
}

class RootBootstrap final : public Bootstrap {
 public:
  // Joins (rank > 0) or hosts (rank 0, listening at options.root) the job.
  // Returns once every rank is in. Throws ConfigError for a bad option or a
  // refusal (naming what the root refused), TimeoutError when ranks are
  // missing at the timeout (the root's names them; the others are told),
  // Error when the root's address cannot be listened on.
  RootBootstrap(int rank, int size, std::span<const std::byte> descriptor,
                const BootstrapOptions& options);
  // Rank 0 with its listener already bound (a launcher that picked port 0).
  RootBootstrap(rstream::Listener listener, int size, std::span<const std::byte> descriptor,
                const BootstrapOptions& options);
  // Ranks other than 0 say goodbye; rank 0 waits (up to the timeout) for
  // every other rank to say it or go, so that no rank loses its root
  // while it still needs it.
  ~RootBootstrap() override;
  RootBootstrap(const RootBootstrap&) = delete;
  RootBootstrap& operator=(const RootBootstrap&) = delete;
  RootBootstrap(RootBootstrap&&) = delete;
  RootBootstrap& operator=(RootBootstrap&&) = delete;

  [[nodiscard]] int rank() const noexcept override;
  [[nodiscard]] int size() const noexcept override;
  [[nodiscard]] const char* method() const noexcept override { return "root"; }
  [[nodiscard]] const std::vector<Blob>& descriptors() const noexcept override;

  [[nodiscard]] std::vector<Blob> allgather(std::span<const std::byte> mine,
                                            std::chrono::milliseconds timeout) override;
  [[nodiscard]] Blob broadcast(int root, std::span<const std::byte> data,
                               std::chrono::milliseconds timeout) override;
  void abort(int code, const std::string& reason) noexcept override;
  [[nodiscard]] std::optional<JobFailure> failure() const override;
  [[nodiscard]] Store& store() override;

 private:
  class RootStore;

  std::vector<Blob> collective(std::uint32_t root, std::span<const std::byte> mine,
                               std::chrono::milliseconds timeout, const char* what);

  std::unique_ptr<detail::RootState> state_;
  std::unique_ptr<RootStore> store_;
};

}  // namespace railyard::bootstrap
