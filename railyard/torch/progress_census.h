// How far each rank of a process group has come, asked through the group's
// store only once something failed: a collective that times out on one
// rank is usually stuck because another rank never called it, and only the
// ranks next to it in the schedule would otherwise name it. Each rank
// counts the collectives it starts; the first failure on a rank publishes
// its count, and a timeout reads the others' counts to name the ranks that
// have not called the collective (ProcessGroupNCCL's desync report answers
// the same question).
#pragma once

#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace railyard::pytorch {

class ProgressCensus {
 public:
  // `store`: the group's own (torch prefixes it per group); `rank` and
  // `size` in the group.
  ProgressCensus(c10::intrusive_ptr<c10d::Store> store, int rank, int size);

  // Counts a collective this rank starts; returns its index in the group's
  // order (0 for the first).
  std::uint64_t count_start() noexcept { return started_.fetch_add(1); }

  // Publishes this rank's count once, at its first failure. Never throws:
  // a store that fails only loses the census.
  void publish() noexcept;

  // Why collective `index` may not have finished, as a clause for a
  // timeout's message: the ranks that have not called it (their counts say
  // so, or they sent none within `grace`), or that every rank did. Waits
  // up to `grace` for the other ranks' counts, once: later calls reuse
  // them. Empty when the store fails.
  std::string explain(std::uint64_t index, std::chrono::milliseconds grace) noexcept;

 private:
  [[nodiscard]] std::string key(int rank) const;
  void gather(std::chrono::milliseconds grace);

  c10::intrusive_ptr<c10d::Store> store_;
  int rank_;
  int size_;
  std::atomic<std::uint64_t> started_{0};
  std::mutex mutex_;
  bool published_ = false;
  std::chrono::milliseconds grace_used_{0};
  // Each rank's published count; nullopt for one that sent none in time.
  std::optional<std::vector<std::optional<std::uint64_t>>> counts_;
};

}  // namespace railyard::pytorch
