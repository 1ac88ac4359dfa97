#include "railyard/mpi_shim/detail/world_collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::mpi_shim {
namespace {

constexpr int kWell = 0;
constexpr int kFailed = 1;

class SharedView final : public bootstrap::MpiCollectives {
 public:
  explicit SharedView(std::shared_ptr<WorldCollectives> target) : target_(std::move(target)) {}
  [[nodiscard]] int rank() const override { return target_->rank(); }
  [[nodiscard]] int size() const override { return target_->size(); }
  [[nodiscard]] std::vector<bootstrap::Blob> allgather(std::span<const std::byte> mine) override {
    return target_->allgather(mine);
  }
  void abort(int code) noexcept override { target_->abort(code); }

 private:
  std::shared_ptr<WorldCollectives> target_;
};

}  // namespace

std::unique_ptr<bootstrap::MpiCollectives> bootstrap_view(
    std::shared_ptr<WorldCollectives> collectives) {
  return std::make_unique<SharedView>(std::move(collectives));
}

WorldCollectives::WorldCollectives(MPI_Comm parent) : comm_(parent) {
  check_mpi(PMPI_Comm_rank(comm_.get(), &rank_), "MPI_Comm_rank");
  check_mpi(PMPI_Comm_size(comm_.get(), &size_), "MPI_Comm_size");
}

std::vector<int> WorldCollectives::exchange_states(int state, int length) const {
  const std::array<int, 2> mine{state, length};
  std::vector<int> all(static_cast<std::size_t>(size_) * 2);
  check_mpi(PMPI_Allgather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, comm_.get()),
            "MPI_Allgather");
  return all;
}

std::vector<bootstrap::Blob> WorldCollectives::allgather(std::span<const std::byte> mine) {
  if (detached_.load() || !mpi_is_up()) {
    throw Error("the MPI shim's world is leaving without MPI (MPI_Finalize was not called)");
  }
  const std::vector<int> states = exchange_states(kWell, static_cast<int>(mine.size()));
  for (int other = 0; other < size_; ++other) {
    if (states[static_cast<std::size_t>(other) * 2] != kWell) {
      throw railyard::RemoteError(
          other, fmt::format("rank {} could not build its part of the railyard world", other));
    }
  }
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    lengths[i] = states[i * 2 + 1];
  }
  std::vector<int> offsets(lengths.size());
  std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  std::vector<std::byte> all(static_cast<std::size_t>(offsets.back() + lengths.back()));
  check_mpi(PMPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(),
                            lengths.data(), offsets.data(), MPI_BYTE, comm_.get()),
            "MPI_Allgatherv");
  std::vector<bootstrap::Blob> out;
  out.reserve(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto* first = all.data() + offsets[i];
    out.emplace_back(first, first + lengths[i]);
  }
  return out;
}

void WorldCollectives::fail_rounds() noexcept {
  if (detached_.load() || !mpi_is_up()) {
    return;
  }
  try {
    // Each round meets one of every other rank's: a round of theirs that
    // was meant to carry bytes sees this failure and throws, and they come
    // here too. Once every rank reports failure, all have stopped. Ranks
    // never run more rounds than the world's setup has, plus this one.
    while (true) {
      const std::vector<int> states = exchange_states(kFailed, 0);
      bool all_failed = true;
      for (int other = 0; other < size_; ++other) {
        all_failed = all_failed && states[static_cast<std::size_t>(other) * 2] == kFailed;
      }
      if (all_failed) {
        return;
      }
    }
  } catch (const std::exception& error) {
    log::error("MPI shim: rank {} could not tell the others it failed: {}", rank_, error.what());
  }
}

void WorldCollectives::abort(int code) noexcept { PMPI_Abort(comm_.get(), code); }

}  // namespace railyard::mpi_shim
