// Who talks to whom, shared by the algorithms (as UCC's coll_patterns).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace railyard::collectives::detail {

// `count` elements cut into `parts` blocks in order, the first count % parts
// one element longer: block i's first element and length.
struct Blocks {
  std::size_t count;
  std::size_t parts;

  [[nodiscard]] std::size_t length(std::size_t i) const noexcept {
    return count / parts + (i < count % parts ? 1 : 0);
  }
  [[nodiscard]] std::size_t offset(std::size_t i) const noexcept {
    return i * (count / parts) + (i < count % parts ? i : count % parts);
  }
  [[nodiscard]] std::size_t longest() const noexcept { return length(0); }
};

// Runs of elements cut into segments of `per` elements (at least one), as
// the ring reduce-scatter and recursive doubling send a long step: segment
// k of a run of n elements starts at first(k, n) and holds length(k, n)
// (the last one short, those past the end empty); a run takes count(n)
// segments, at least one even when empty.
struct Segments {
  std::size_t per;

  // Segments of `bytes` (whole elements of `element` bytes, at least one).
  [[nodiscard]] static Segments of_bytes(std::size_t bytes, std::size_t element) noexcept {
    return Segments{std::max<std::size_t>(bytes / element, 1)};
  }
  [[nodiscard]] std::size_t count(std::size_t n) const noexcept {
    return std::max<std::size_t>((n + per - 1) / per, 1);
  }
  [[nodiscard]] std::size_t first(std::size_t k, std::size_t n) const noexcept {
    return std::min(k * per, n);
  }
  [[nodiscard]] std::size_t length(std::size_t k, std::size_t n) const noexcept {
    return std::min(first(k, n) + per, n) - first(k, n);
  }
};

// Where each rank's block lies in a buffer of the v-collectives: the
// caller's counts and displacements (in elements), or, when `counts` is
// empty, `uniform` elements per rank in rank order.
struct BlockLayout {
  std::span<const std::size_t> counts;
  std::span<const std::size_t> displs;
  std::size_t uniform = 0;

  [[nodiscard]] std::size_t count(int rank) const noexcept {
    return length(static_cast<std::size_t>(rank));
  }
  [[nodiscard]] std::size_t offset(int rank) const noexcept {
    return offset(static_cast<std::size_t>(rank));
  }
  // By block index, as Blocks has them (ring_allgather takes either).
  [[nodiscard]] std::size_t length(std::size_t i) const noexcept {
    return counts.empty() ? uniform : counts[i];
  }
  [[nodiscard]] std::size_t offset(std::size_t i) const noexcept {
    return counts.empty() ? uniform * i : displs[i];
  }
  // The elements the first `parts` blocks span: the largest end of one.
  [[nodiscard]] std::size_t extent(std::size_t parts) const noexcept {
    std::size_t end = 0;
    for (std::size_t i = 0; i < parts; ++i) {
      end = std::max(end, offset(i) + length(i));
    }
    return end;
  }
  // The longest block of `parts`.
  [[nodiscard]] std::size_t longest(std::size_t parts) const noexcept {
    std::size_t most = 0;
    for (std::size_t i = 0; i < parts; ++i) {
      most = std::max(most, length(i));
    }
    return most;
  }
};

// The counts and displacements of `blocks`, held: a BlockLayout of them
// views these arrays.
struct HeldLayout {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;

  explicit HeldLayout(Blocks blocks) {
    for (std::size_t i = 0; i < blocks.parts; ++i) {
      counts.push_back(blocks.length(i));
      displs.push_back(blocks.offset(i));
    }
  }
  [[nodiscard]] BlockLayout view() const noexcept { return BlockLayout{counts, displs, 0}; }
};

// The ring of ranks 0 .. size-1: the next and previous rank, and the rank
// `k` places before `rank` (k may exceed size).
struct Ring {
  int rank;
  int size;

  [[nodiscard]] int next() const noexcept { return (rank + 1) % size; }
  [[nodiscard]] int previous() const noexcept { return (rank + size - 1) % size; }
  [[nodiscard]] int before(int k) const noexcept { return ((rank - k) % size + size) % size; }
};

// Recursive doubling on any number of ranks: the largest power of two not
// above size takes part; each of the first 2 * extra ranks pairs up, the
// even one of the pair folding its data into the odd one (and getting the
// result back at the end).
struct Doubling {
  int rank;
  int size;

  [[nodiscard]] int power() const noexcept {
    int p = 1;
    while (p * 2 <= size) {
      p *= 2;
    }
    return p;
  }
  [[nodiscard]] int extra() const noexcept { return size - power(); }
  // Whether this rank sits out the doubling (it folded into rank + 1).
  [[nodiscard]] bool folds() const noexcept { return rank < 2 * extra() && rank % 2 == 0; }
  // The rank's number among those taking part (-1 when it folds).
  [[nodiscard]] int member() const noexcept {
    if (folds()) {
      return -1;
    }
    return rank < 2 * extra() ? rank / 2 : rank - extra();
  }
  // The rank of member m.
  [[nodiscard]] int rank_of(int m) const noexcept { return m < extra() ? 2 * m + 1 : m + extra(); }
};

// The binomial tree of the ranks numbered from `root`: a rank's parent is
// its number less its lowest set bit; its children are its number plus each
// power of two below that bit (below the size, for the root).
struct BinomialTree {
  int rank;
  int size;
  int root;

  [[nodiscard]] int relative() const noexcept { return (rank - root + size) % size; }
  [[nodiscard]] int absolute(int number) const noexcept { return (number + root) % size; }
  // The lowest set bit of this rank's number; for the root, the size
  // rounded up to a power of two.
  [[nodiscard]] int reach() const noexcept {
    int mask = 1;
    while (mask < size && (relative() & mask) == 0) {
      mask <<= 1;
    }
    return mask;
  }
  // The parent's rank; -1 for the root.
  [[nodiscard]] int parent() const noexcept {
    return relative() == 0 ? -1 : absolute(relative() - reach());
  }
  // The children's ranks, the farthest (largest subtree) first.
  [[nodiscard]] std::vector<int> children() const {
    std::vector<int> out;
    for (int mask = reach() >> 1; mask > 0; mask >>= 1) {
      if (relative() + mask < size) {
        out.push_back(absolute(relative() + mask));
      }
    }
    return out;
  }
};

}  // namespace railyard::collectives::detail
