// Turning a transfer size into pieces, one per rail path: the multi-rail
// layer's scheduler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railyard::mrail {

struct StripePiece {
  std::size_t path = 0;  // index into the peer's paths
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  friend bool operator==(const StripePiece&, const StripePiece&) = default;
};

// Splits transfers over paths in proportion to the paths' weights.
//
// A transfer of `size` bytes uses n = min(paths, max(1, size / min_chunk))
// paths, taken in order starting at `first_path` (callers rotate it so
// transfers too small for every path still spread out). Each path's share is
// proportional to its weight, rounded down to `alignment`, and the last piece
// takes the remainder. If a share would fall below min_chunk, the lightest
// path leaves the set and the split is redone, so every piece of a split
// transfer is at least min_chunk bytes: there are never zero-length pieces.
// A zero-byte transfer is one empty piece on `first_path`.
class StripePlan {
 public:
  // weights: one positive value per path. min_chunk >= 1; alignment >= 1 and
  // at most min_chunk.
  StripePlan(std::vector<double> weights, std::uint64_t min_chunk, std::uint64_t alignment = 128);

  [[nodiscard]] std::size_t paths() const noexcept { return weights_.size(); }
  [[nodiscard]] std::uint64_t min_chunk() const noexcept { return min_chunk_; }

  // Appends the pieces of a `size`-byte transfer to `out` (cleared first),
  // in increasing offset order.
  void split(std::uint64_t size, std::size_t first_path, std::vector<StripePiece>& out) const;

 private:
  std::vector<double> weights_;
  std::uint64_t min_chunk_;
  std::uint64_t alignment_;
};

}  // namespace railyard::mrail
