// Reduce-scatter by recursive halving, the nearest partner first (the
// butterfly): log2 p' steps, each sending half of what a rank still holds,
// where the ring takes p - 1 steps: for short vectors and many ranks. Ranks
// past the largest power of two p' fold their vector into a neighbour
// first and get their block back at the end, as in Rabenseifner's
// allreduce. Member m of the p' answers for its ranks' blocks (a group of
// one or two); the working vector holds the groups in the bit-reversed
// order of their members, so that keeping, at distance 1, 2, ..., p'/2,
// the half of the window on one's own side leaves member m with group m.
// The largest steps stay between near ranks, on one host as launchers
// number them. Each block is reduced at one member only. Any p.
#include <array>
#include <cstring>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

// m's bits in the reverse order, over `bits` bits.
std::size_t reversed(std::size_t m, int bits) {
  std::size_t out = 0;
  for (int bit = 0; bit < bits; ++bit) {
    out = (out << 1U) | ((m >> static_cast<unsigned>(bit)) & 1U);
  }
  return out;
}

// Where the members' groups of blocks lie, in the ranks' order and in the
// working vector's.
class Groups {
 public:
  explicit Groups(const Doubling& doubling) : extra_(static_cast<std::size_t>(doubling.extra())) {
    const int members = doubling.power();
    while ((1 << bits_) < members) {
      ++bits_;
    }
    // at_[q]: the first block of the group at place q of the working vector.
    at_.resize(static_cast<std::size_t>(members) + 1);
    for (std::size_t place = 0; place < static_cast<std::size_t>(members); ++place) {
      at_[place + 1] = at_[place] + blocks(member_at(place));
    }
  }

  [[nodiscard]] int bits() const noexcept { return bits_; }
  // Member m's first block in rank order, and how many it answers for.
  [[nodiscard]] std::size_t first(std::size_t m) const noexcept {
    return m < extra_ ? 2 * m : m + extra_;
  }
  [[nodiscard]] std::size_t blocks(std::size_t m) const noexcept { return m < extra_ ? 2 : 1; }
  // The place of member m's group in the working vector, the member at a
  // place, and a place's first block there.
  [[nodiscard]] std::size_t place_of(std::size_t m) const noexcept { return reversed(m, bits_); }
  [[nodiscard]] std::size_t member_at(std::size_t place) const noexcept {
    return reversed(place, bits_);
  }
  [[nodiscard]] std::size_t at(std::size_t place) const noexcept { return at_[place]; }

 private:
  std::size_t extra_;
  int bits_ = 0;
  std::vector<std::size_t> at_{0};
};

CollectiveTask reduce_scatter_recursive_halving(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const std::size_t block = args.count * element;
  const auto size = static_cast<std::size_t>(channel.size());
  const std::size_t total = block * size;
  const Doubling doubling{channel.rank(), channel.size()};
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  auto* out = static_cast<std::byte*>(args.recv);
  const int rank = doubling.rank;

  // The fold: the even rank of each of the first 2 * extra pairs hands its
  // vector to the odd one, and gets its block back at the end.
  if (doubling.folds()) {
    std::array<Transfer, 1> give{channel.send(source, total, rank + 1)};
    co_await Transfers{give};
    std::array<Transfer, 1> result{channel.recv(out, block, rank + 1)};
    co_await Transfers{result};
    channel.expect(result[0], block, rank + 1);
    co_return;
  }
  Scratch incoming(total);
  Scratch folded;
  const std::byte* vector = source;
  if (rank < 2 * doubling.extra()) {
    std::array<Transfer, 1> take{channel.recv(incoming.data(), total, rank - 1)};
    co_await Transfers{take};
    channel.expect(take[0], total, rank - 1);
    folded = Scratch(total);
    // The lower rank's on the left.
    reduce(args.type, args.op, folded.data(), incoming.data(), source, args.count * size);
    vector = folded.data();
  }

  // The groups in the working order.
  const Groups groups(doubling);
  const auto members = static_cast<std::size_t>(doubling.power());
  Scratch work(total);
  for (std::size_t place = 0; place < members; ++place) {
    const std::size_t m = groups.member_at(place);
    if (groups.blocks(m) * block != 0) {
      std::memcpy(work.data() + groups.at(place) * block, vector + groups.first(m) * block,
                  groups.blocks(m) * block);
    }
  }

  // Halving: places lo .. hi - 1 of the working vector are this member's.
  const auto member = static_cast<std::size_t>(doubling.member());
  std::size_t lo = 0;
  std::size_t hi = members;
  for (std::size_t distance = 1; distance < members; distance *= 2) {
    const int partner = doubling.rank_of(static_cast<int>(member ^ distance));
    const std::size_t middle = lo + (hi - lo) / 2;
    const bool lower = (member & distance) == 0;
    const std::size_t keep_lo = lower ? lo : middle;
    const std::size_t keep_hi = lower ? middle : hi;
    const std::size_t give_lo = lower ? middle : lo;
    const std::size_t give_hi = lower ? hi : middle;
    const std::size_t in_bytes = (groups.at(keep_hi) - groups.at(keep_lo)) * block;
    std::array<Transfer, 2> swap{
        channel.recv(incoming.data(), in_bytes, partner),
        channel.send(work.data() + groups.at(give_lo) * block,
                     (groups.at(give_hi) - groups.at(give_lo)) * block, partner)};
    co_await Transfers{swap};
    channel.expect(swap[0], in_bytes, partner);
    std::byte* kept = work.data() + groups.at(keep_lo) * block;
    const std::size_t elements = in_bytes / element;
    // The lower member's data on the left, whichever rank reduces.
    if (lower) {
      reduce(args.type, args.op, kept, kept, incoming.data(), elements);
    } else {
      reduce(args.type, args.op, kept, incoming.data(), kept, elements);
    }
    lo = keep_lo;
    hi = keep_hi;
  }

  // This member's group: its own block last; the first to the rank that
  // folded into it.
  const std::byte* group = work.data() + groups.at(groups.place_of(member)) * block;
  if (groups.blocks(member) == 2) {
    std::array<Transfer, 1> back{channel.send(group, block, rank - 1)};
    co_await Transfers{back};
    group += block;
  }
  if (block != 0) {
    std::memcpy(out, group, block);
  }
}

// The fold (the vector in, a block back), one pass to order the groups,
// then log2 p' exchanges of half what is left, each reduced.
double reduce_scatter_recursive_halving_cost(const CostQuery& query) {
  const auto bytes = static_cast<double>(query.bytes);
  const int members = floor_pow2(query.ranks);
  double total = copy_us(query, bytes);
  if (members != query.ranks) {
    total += fold_us(query, bytes, true) / 2 + fold_us(query, bytes / query.ranks, false) / 2;
  }
  return total + halving_exchanges_us(query, bytes, true) + halving_reduce_us(query, bytes);
}

const Registration kReduceScatterRecursiveHalving{Algorithm{
    Collective::kReduceScatter, "recursive_halving",
    "log2 p steps, each sending half of what is left to the partner 1, 2, 4, ... away: short "
    "vectors, many ranks",
    reduce_scatter_recursive_halving, reduce_scatter_recursive_halving_cost}};

}  // namespace
}  // namespace railyard::collectives::detail
