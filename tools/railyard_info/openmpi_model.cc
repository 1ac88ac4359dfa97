#include "openmpi_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>

#include "railyard/collectives/registry.h"

namespace railyard::info {
namespace {

using collectives::Collective;
using collectives::CostQuery;

constexpr int kAnyRanks = std::numeric_limits<int>::max();
constexpr std::uint64_t kAnyBytes = std::numeric_limits<std::uint64_t>::max();

// One line of a fixed decision: below this many ranks and below this many
// bytes (Open MPI's measure of the call), this algorithm. The first line
// that fits wins.
struct Rule {
  int below_ranks;
  std::uint64_t below_bytes;
  std::string_view algorithm;
};

// coll/tuned's fixed decisions for a commutative operation, the sizes in
// bytes of the whole vector (allreduce, bcast, reduce) or of one rank's
// block (the others), as Open MPI measures them.
constexpr std::array kAllreduceRules{
    Rule{4, 8, "ring"},
    Rule{4, 4096, "recursive_doubling"},
    Rule{4, 8192, "ring"},
    Rule{4, 16384, "recursive_doubling"},
    Rule{4, 65536, "ring"},
    Rule{4, 262144, "segmented_ring"},
    Rule{4, kAnyBytes, "rabenseifner"},
    Rule{8, 16, "ring"},
    Rule{8, 8192, "recursive_doubling"},
    Rule{8, kAnyBytes, "rabenseifner"},
    Rule{16, 8192, "recursive_doubling"},
    Rule{16, kAnyBytes, "rabenseifner"},
    Rule{32, 64, "segmented_ring"},
    Rule{32, 4096, "recursive_doubling"},
    Rule{32, kAnyBytes, "rabenseifner"},
    Rule{64, 128, "segmented_ring"},
    Rule{64, kAnyBytes, "rabenseifner"},
    Rule{128, 262144, "recursive_doubling"},
    Rule{128, kAnyBytes, "rabenseifner"},
    Rule{256, 131072, "nonoverlapping"},
    Rule{256, 262144, "recursive_doubling"},
    Rule{256, kAnyBytes, "rabenseifner"},
    Rule{512, 4096, "nonoverlapping"},
    Rule{512, kAnyBytes, "rabenseifner"},
    Rule{2048, 2048, "nonoverlapping"},
    Rule{2048, 16384, "recursive_doubling"},
    Rule{2048, kAnyBytes, "rabenseifner"},
    Rule{4096, 2048, "nonoverlapping"},
    Rule{4096, 4096, "segmented_ring"},
    Rule{4096, 16384, "recursive_doubling"},
    Rule{4096, kAnyBytes, "rabenseifner"},
    Rule{kAnyRanks, 2048, "nonoverlapping"},
    Rule{kAnyRanks, 16384, "segmented_ring"},
    Rule{kAnyRanks, 32768, "recursive_doubling"},
    Rule{kAnyRanks, kAnyBytes, "rabenseifner"},
};

constexpr std::array kAlltoallRules{
    Rule{3, 2, "pairwise"},
    Rule{3, 4, "two_proc"},
    Rule{3, 16, "pairwise"},
    Rule{3, 64, "two_proc"},
    Rule{3, 256, "pairwise"},
    Rule{3, 4096, "two_proc"},
    Rule{3, 32768, "pairwise"},
    Rule{3, 262144, "linear_sync"},
    Rule{3, 1048576, "two_proc"},
    Rule{3, kAnyBytes, "pairwise"},
    Rule{8, 8192, "linear_sync"},
    Rule{8, 16384, "linear"},
    Rule{8, 65536, "linear_sync"},
    Rule{8, 524288, "linear"},
    Rule{8, 1048576, "pairwise"},
    Rule{8, kAnyBytes, "linear"},
    Rule{16, 262144, "linear_sync"},
    Rule{16, kAnyBytes, "linear"},
    Rule{32, 4, "linear_sync"},
    Rule{32, 512, "modified_bruck"},
    Rule{32, 8192, "linear_sync"},
    Rule{32, 32768, "linear"},
    Rule{32, 262144, "linear_sync"},
    Rule{32, 524288, "linear"},
    Rule{32, kAnyBytes, "linear_sync"},
    Rule{64, 512, "modified_bruck"},
    Rule{64, 524288, "linear"},
    Rule{64, kAnyBytes, "linear_sync"},
    Rule{128, 1024, "modified_bruck"},
    Rule{128, 2048, "linear"},
    Rule{128, 4096, "linear_sync"},
    Rule{128, 262144, "linear"},
    Rule{128, kAnyBytes, "pairwise"},
    Rule{256, 1024, "modified_bruck"},
    Rule{256, 2048, "linear_sync"},
    Rule{256, 262144, "linear"},
    Rule{256, kAnyBytes, "pairwise"},
    Rule{512, 1024, "modified_bruck"},
    Rule{512, 8192, "linear_sync"},
    Rule{512, 32768, "linear"},
    Rule{512, kAnyBytes, "pairwise"},
    Rule{1024, 512, "modified_bruck"},
    Rule{1024, 8192, "linear_sync"},
    Rule{1024, 16384, "linear"},
    Rule{1024, 131072, "linear_sync"},
    Rule{1024, 262144, "linear"},
    Rule{1024, kAnyBytes, "pairwise"},
    Rule{2048, 512, "modified_bruck"},
    Rule{2048, 1024, "linear_sync"},
    Rule{2048, 2048, "linear"},
    Rule{2048, 16384, "linear_sync"},
    Rule{2048, 262144, "linear"},
    Rule{2048, kAnyBytes, "linear_sync"},
    Rule{4096, 1024, "modified_bruck"},
    Rule{4096, 4096, "linear_sync"},
    Rule{4096, 8192, "linear"},
    Rule{4096, 131072, "linear_sync"},
    Rule{4096, kAnyBytes, "linear"},
    Rule{kAnyRanks, 2048, "modified_bruck"},
    Rule{kAnyRanks, 8192, "linear_sync"},
    Rule{kAnyRanks, 16384, "linear"},
    Rule{kAnyRanks, 32768, "linear_sync"},
    Rule{kAnyRanks, 65536, "linear"},
    Rule{kAnyRanks, kAnyBytes, "linear_sync"},
};

constexpr std::array kBarrierRules{
    Rule{4, kAnyBytes, "recursive_doubling"},
    Rule{8, kAnyBytes, "linear"},
    Rule{64, kAnyBytes, "recursive_doubling"},
    Rule{256, kAnyBytes, "bruck"},
    Rule{512, kAnyBytes, "tree"},
    Rule{1024, kAnyBytes, "bruck"},
    Rule{4096, kAnyBytes, "tree"},
    Rule{kAnyRanks, kAnyBytes, "bruck"},
};

constexpr std::array kBcastRules{
    Rule{4, 32, "pipeline"},
    Rule{4, 256, "binary_tree"},
    Rule{4, 512, "pipeline"},
    Rule{4, 1024, "knomial"},
    Rule{4, 32768, "basic_linear"},
    Rule{4, 131072, "binary_tree"},
    Rule{4, 262144, "chain"},
    Rule{4, 524288, "basic_linear"},
    Rule{4, 1048576, "binomial"},
    Rule{4, kAnyBytes, "binary_tree"},
    Rule{8, 64, "binary_tree"},
    Rule{8, 128, "binomial"},
    Rule{8, 2048, "binary_tree"},
    Rule{8, 8192, "binomial"},
    Rule{8, 1048576, "basic_linear"},
    Rule{8, kAnyBytes, "chain"},
    Rule{16, 8, "knomial"},
    Rule{16, 64, "binary_tree"},
    Rule{16, 4096, "knomial"},
    Rule{16, 16384, "binary_tree"},
    Rule{16, 32768, "binomial"},
    Rule{16, kAnyBytes, "basic_linear"},
    Rule{32, 4096, "knomial"},
    Rule{32, 1048576, "binomial"},
    Rule{32, kAnyBytes, "scatter_allgather"},
    Rule{64, 2048, "binomial"},
    Rule{64, kAnyBytes, "knomial"},
    Rule{128, kAnyBytes, "knomial"},
    Rule{256, 2, "binomial"},
    Rule{256, 16384, "binary_tree"},
    Rule{256, 32768, "basic_linear"},
    Rule{256, 65536, "binary_tree"},
    Rule{256, kAnyBytes, "knomial"},
    Rule{1024, 16384, "knomial"},
    Rule{1024, 32768, "split_binary_tree"},
    Rule{1024, kAnyBytes, "knomial"},
    Rule{2048, 524288, "knomial"},
    Rule{2048, kAnyBytes, "scatter_allgather"},
    Rule{4096, 262144, "knomial"},
    Rule{4096, kAnyBytes, "scatter_allgather"},
    Rule{kAnyRanks, 8192, "knomial"},
    Rule{kAnyRanks, 16384, "binary_tree"},
    Rule{kAnyRanks, 262144, "knomial"},
    Rule{kAnyRanks, kAnyBytes, "scatter_allgather"},
};

constexpr std::array kReduceRules{
    Rule{4, 8, "rabenseifner"},
    Rule{4, 16, "binary"},
    Rule{4, 32, "pipeline"},
    Rule{4, 262144, "linear"},
    Rule{4, 524288, "pipeline"},
    Rule{4, 1048576, "chain"},
    Rule{4, kAnyBytes, "pipeline"},
    Rule{8, 4096, "binary"},
    Rule{8, 65536, "chain"},
    Rule{8, 262144, "binomial"},
    Rule{8, 524288, "linear"},
    Rule{8, 1048576, "binomial"},
    Rule{8, kAnyBytes, "linear"},
    Rule{16, 8192, "binary"},
    Rule{16, kAnyBytes, "binomial"},
    Rule{32, 4096, "binary"},
    Rule{32, kAnyBytes, "binomial"},
    Rule{256, kAnyBytes, "binomial"},
    Rule{512, 8192, "binomial"},
    Rule{512, 16384, "in-order_binary"},
    Rule{512, kAnyBytes, "binomial"},
    Rule{2048, kAnyBytes, "binomial"},
    Rule{4096, 512, "binomial"},
    Rule{4096, 1024, "in-order_binary"},
    Rule{4096, 8192, "binomial"},
    Rule{4096, 16384, "in-order_binary"},
    Rule{4096, kAnyBytes, "binomial"},
    Rule{kAnyRanks, 16, "binomial"},
    Rule{kAnyRanks, 32, "in-order_binary"},
    Rule{kAnyRanks, 1024, "binomial"},
    Rule{kAnyRanks, 2048, "in-order_binary"},
    Rule{kAnyRanks, 8192, "binomial"},
    Rule{kAnyRanks, 16384, "in-order_binary"},
    Rule{kAnyRanks, kAnyBytes, "binomial"},
};

// MPI_Reduce_scatter_block, the form railyard's reduce_scatter has.
constexpr std::array kReduceScatterBlockRules{
    Rule{4, 4, "recursive_doubling"},
    Rule{4, 8, "butterfly"},
    Rule{4, 16, "recursive_halving"},
    Rule{4, 128, "butterfly"},
    Rule{4, 256, "recursive_halving"},
    Rule{4, 4096, "butterfly"},
    Rule{4, 8192, "recursive_halving"},
    Rule{4, 131072, "butterfly"},
    Rule{4, kAnyBytes, "basic_linear"},
    Rule{8, 8, "recursive_halving"},
    Rule{8, 32, "recursive_doubling"},
    Rule{8, 256, "butterfly"},
    Rule{8, 8192, "recursive_halving"},
    Rule{8, 16384, "butterfly"},
    Rule{8, 1048576, "recursive_halving"},
    Rule{8, kAnyBytes, "basic_linear"},
    Rule{16, 4, "basic_linear"},
    Rule{16, 32, "recursive_halving"},
    Rule{16, 128, "butterfly"},
    Rule{16, 524288, "recursive_halving"},
    Rule{16, 4194304, "basic_linear"},
    Rule{16, kAnyBytes, "butterfly"},
    Rule{32, 32, "basic_linear"},
    Rule{32, 524288, "recursive_halving"},
    Rule{32, 2097152, "basic_linear"},
    Rule{32, 4194304, "recursive_halving"},
    Rule{32, kAnyBytes, "butterfly"},
    Rule{kAnyRanks, 4, "recursive_halving"},
    Rule{kAnyRanks, 16, "basic_linear"},
    Rule{kAnyRanks, 65536, "butterfly"},
    Rule{kAnyRanks, 262144, "basic_linear"},
    Rule{kAnyRanks, kAnyBytes, "butterfly"},
};

constexpr std::array kAllgatherRules{
    Rule{3, kAnyBytes, "two_proc"},
    Rule{32, kAnyBytes, "recursive_doubling"},
    Rule{64, 1024, "recursive_doubling"},
    Rule{64, 65536, "neighbor"},
    Rule{64, kAnyBytes, "ring"},
    Rule{128, 512, "recursive_doubling"},
    Rule{128, 65536, "neighbor"},
    Rule{128, kAnyBytes, "ring"},
    Rule{256, 512, "recursive_doubling"},
    Rule{256, 131072, "neighbor"},
    Rule{256, 524288, "ring"},
    Rule{256, 1048576, "neighbor"},
    Rule{256, kAnyBytes, "ring"},
    Rule{512, 32, "recursive_doubling"},
    Rule{512, 128, "bruck"},
    Rule{512, 1024, "recursive_doubling"},
    Rule{512, 131072, "neighbor"},
    Rule{512, 524288, "ring"},
    Rule{512, 1048576, "neighbor"},
    Rule{512, kAnyBytes, "ring"},
    Rule{1024, 64, "recursive_doubling"},
    Rule{1024, 256, "bruck"},
    Rule{1024, 2048, "recursive_doubling"},
    Rule{1024, kAnyBytes, "neighbor"},
    Rule{2048, 4, "recursive_doubling"},
    Rule{2048, 8, "bruck"},
    Rule{2048, 16, "recursive_doubling"},
    Rule{2048, 32, "bruck"},
    Rule{2048, 256, "recursive_doubling"},
    Rule{2048, 512, "bruck"},
    Rule{2048, 4096, "recursive_doubling"},
    Rule{2048, kAnyBytes, "neighbor"},
    Rule{4096, 32, "bruck"},
    Rule{4096, 128, "recursive_doubling"},
    Rule{4096, 512, "bruck"},
    Rule{4096, 4096, "recursive_doubling"},
    Rule{4096, kAnyBytes, "neighbor"},
    Rule{kAnyRanks, 2, "recursive_doubling"},
    Rule{kAnyRanks, 8, "bruck"},
    Rule{kAnyRanks, 16, "recursive_doubling"},
    Rule{kAnyRanks, 512, "bruck"},
    Rule{kAnyRanks, 4096, "recursive_doubling"},
    Rule{kAnyRanks, kAnyBytes, "neighbor"},
};

constexpr std::array kGatherRules{
    Rule{4, 2, "linear_sync"},
    Rule{4, 4, "basic_linear"},
    Rule{4, 32768, "binomial"},
    Rule{4, 65536, "basic_linear"},
    Rule{4, 131072, "binomial"},
    Rule{4, kAnyBytes, "linear_sync"},
    Rule{8, 1024, "binomial"},
    Rule{8, 8192, "basic_linear"},
    Rule{8, 32768, "binomial"},
    Rule{8, 262144, "basic_linear"},
    Rule{8, kAnyBytes, "linear_sync"},
    Rule{256, kAnyBytes, "binomial"},
    Rule{512, 2048, "binomial"},
    Rule{512, 8192, "basic_linear"},
    Rule{kAnyRanks, kAnyBytes, "binomial"},
};

constexpr std::array kScatterRules{
    Rule{4, 2, "linear_nb"},
    Rule{4, 131072, "basic_linear"},
    Rule{4, 262144, "linear_nb"},
    Rule{4, kAnyBytes, "basic_linear"},
    Rule{8, 2048, "binomial"},
    Rule{8, 4096, "basic_linear"},
    Rule{8, 8192, "binomial"},
    Rule{8, 32768, "basic_linear"},
    Rule{8, 1048576, "linear_nb"},
    Rule{8, kAnyBytes, "basic_linear"},
    Rule{16, 16384, "binomial"},
    Rule{16, 1048576, "linear_nb"},
    Rule{16, kAnyBytes, "basic_linear"},
    Rule{32, 16384, "binomial"},
    Rule{32, 32768, "basic_linear"},
    Rule{32, kAnyBytes, "linear_nb"},
    Rule{64, 512, "binomial"},
    Rule{64, 8192, "linear_nb"},
    Rule{64, 16384, "binomial"},
    Rule{64, kAnyBytes, "linear_nb"},
    Rule{kAnyRanks, 512, "binomial"},
    Rule{kAnyRanks, kAnyBytes, "linear_nb"},
};

// The equal form a v-form is priced as.
Collective equal_form(Collective collective) {
  switch (collective) {
    case Collective::kGatherv:
      return Collective::kGather;
    case Collective::kScatterv:
      return Collective::kScatter;
    case Collective::kAllgatherv:
      return Collective::kAllgather;
    case Collective::kAlltoallv:
      return Collective::kAlltoall;
    case Collective::kReduceScatterv:
      return Collective::kReduceScatter;
    default:
      return collective;
  }
}

// A collective's decision, and whether Open MPI measures the call by one
// rank's block rather than the whole vector.
struct Decision {
  std::span<const Rule> rules;
  bool by_block = false;
};

Decision decision_of(Collective collective) {
  switch (collective) {
    case Collective::kBarrier:
      return {kBarrierRules};
    case Collective::kBcast:
      return {kBcastRules};
    case Collective::kAllreduce:
      return {kAllreduceRules};
    case Collective::kReduce:
      return {kReduceRules};
    case Collective::kAllgather:
      return {kAllgatherRules, true};
    case Collective::kReduceScatter:
      return {kReduceScatterBlockRules, true};
    case Collective::kAlltoall:
      return {kAlltoallRules, true};
    case Collective::kGather:
      return {kGatherRules, true};
    case Collective::kScatter:
      return {kScatterRules, true};
    default:
      throw std::logic_error(
          fmt::format("no Open MPI decision for {}", collectives::to_string(collective)));
  }
}

std::string_view decide(Collective collective, const CostQuery& query) {
  const Decision decision = decision_of(collective);
  const std::uint64_t measure =
      decision.by_block ? query.bytes / static_cast<std::uint64_t>(query.ranks) : query.bytes;
  for (const Rule& rule : decision.rules) {
    if (query.ranks < rule.below_ranks && measure < rule.below_bytes) {
      return rule.algorithm;
    }
  }
  return decision.rules.back().algorithm;  // the last line takes any size
}

// ---- The algorithms' shapes, in the cost model's steps.

double block_of(const CostQuery& query) { return static_cast<double>(query.bytes) / query.ranks; }

double whole_of(const CostQuery& query) { return static_cast<double>(query.bytes); }

// railyard's algorithm of the same steps.
double as_railyard(Collective collective, std::string_view name, const CostQuery& query) {
  const collectives::Algorithm* algorithm = collectives::find_algorithm(collective, name);
  if (algorithm == nullptr) {
    throw std::logic_error(
        fmt::format("railyard has no {} algorithm '{}'", collectives::to_string(collective), name));
  }
  return algorithm->cost(query);
}

// The whole vector from rank to rank down the ranks in order, unsegmented
// (Open MPI's fixed decisions give chain and pipeline no segment size).
double chain_us(const CostQuery& query, double bytes, bool reducing) {
  const int crossings = query.host_count() - 1;
  const int within = query.ranks - 1 - crossings;
  const double reduce = reducing ? collectives::reduce_us(query, bytes) : 0.0;
  return crossings * (collectives::network_us(query.fabric, 1, bytes) + reduce) +
         within * (collectives::on_host_us(query.fabric, 1, bytes) + reduce);
}

// A tree of `radix` from rank 0: at each level a parent sends to its
// radix - 1 children one after another, the farthest level first.
double knomial_us(const CostQuery& query, double bytes, int radix, bool reducing) {
  const int ranks = query.ranks;
  int span = 1;
  while (span * radix < ranks) {
    span *= radix;
  }
  double total = 0.0;
  for (int mask = span; mask >= 1; mask /= radix) {
    for (int child = 1; child < radix; ++child) {
      const int step = child * mask;
      if (step >= ranks) {
        break;
      }
      total += collectives::step_us(query, bytes, [&](int rank) {
        return rank % (radix * mask) == 0 && rank + step < ranks ? rank + step : -1;
      });
      total += reducing ? collectives::reduce_us(query, bytes) : 0.0;
    }
  }
  return total;
}

// A binary tree in heap order (rank r's children 2r + 1 and 2r + 2), a
// level at a time, each parent sending to one child, then the other.
double binary_tree_us(const CostQuery& query, double bytes, bool reducing) {
  const int ranks = query.ranks;
  double total = 0.0;
  for (int first = 0; 2 * first + 1 < ranks; first = 2 * first + 1) {
    const int last = 2 * first;  // the level holds ranks first .. last
    for (int child = 1; child <= 2; ++child) {
      total += collectives::step_us(query, bytes, [&](int rank) {
        const int to = 2 * rank + child;
        return rank >= first && rank <= last && to < ranks ? to : -1;
      });
      total += reducing ? collectives::reduce_us(query, bytes) : 0.0;
    }
  }
  return total;
}

// The binomial tree's scatter from rank 0, the farthest half first; and
// its gather into rank 0, the nearest blocks first.
double binomial_scatter_us(const CostQuery& query, double block) {
  return collectives::binomial_blocks_us(query, block);
}

double binomial_gather_us(const CostQuery& query, double block) {
  return collectives::binomial_blocks_us(query, block);  // the same steps, the other way
}

// Recursive doubling's allgather, railyard's too: the partner r xor d on a
// power of two, Bruck's otherwise, as Open MPI falls back.
double doubling_allgather_us(const CostQuery& query) {
  return as_railyard(Collective::kAllgather, "recursive_doubling", query);
}

// Neighbour exchange: p / 2 steps of two blocks with alternate neighbours;
// Open MPI runs the ring instead when p is odd.
double neighbor_allgather_us(const CostQuery& query, double block) {
  if (query.ranks % 2 != 0) {
    return collectives::ring_us(query, block, false);
  }
  return collectives::xor_step_us(query, block, 1) +
         (query.ranks - 2) / 2.0 * collectives::shift_step_us(query, 2 * block, 1);
}

// Reduce-scatter by halving: ranks past the power of two fold in first,
// then log2 p exchanges of half what is left, each reduced; the butterfly
// takes the nearest partner first, recursive halving the farthest.
double halving_us(const CostQuery& query, double bytes, bool nearest_first) {
  return collectives::fold_us(query, bytes, true) +
         collectives::halving_exchanges_us(query, bytes, nearest_first) +
         collectives::halving_reduce_us(query, bytes);
}

// Every rank posts all its sends at once: a host's links carry its ranks'
// blocks for the other hosts, its memory their blocks for each other.
double linear_alltoall_us(const CostQuery& query, double block) {
  const int per_host = std::min(query.ranks_per_host(), query.ranks);
  const int off_host = per_host * (query.ranks - per_host);
  double within = 0.0;
  if (per_host > 1) {
    const double rate =
        std::min(query.fabric.copy_bytes_per_us, query.fabric.host_copy_bytes_per_us / per_host);
    within = query.fabric.host_latency_us + (per_host - 1) * block / rate;
  }
  return std::max(collectives::network_us(query.fabric, off_host, block), within) +
         collectives::posting_us(query.fabric, query.ranks - 1);
}

// Bruck's alltoall: a rotation each way, and log2 p steps each moving
// about half the blocks.
double modified_bruck_us(const CostQuery& query, double block) {
  double total = 2 * collectives::copy_us(query, whole_of(query));
  for (int distance = 1; distance < query.ranks; distance *= 2) {
    total += collectives::shift_step_us(query, block * query.ranks / 2, distance);
  }
  return total;
}

double doubling_barrier_us(const CostQuery& query) {
  double total = collectives::fold_us(query, 0.0, false);
  for (int mask = 1; mask < collectives::floor_pow2(query.ranks); mask *= 2) {
    total += collectives::xor_step_us(query, 0.0, mask);
  }
  return total;
}

// Each algorithm Open MPI's decisions name, by collective and name.
struct Priced {
  Collective collective;
  std::string_view algorithm;
  double (*cost)(const CostQuery& query);
};

double reduce_choice_us(const CostQuery& query);
double bcast_choice_us(const CostQuery& query);
double scatter_choice_us(const CostQuery& query);

constexpr std::array kPriced{
    // barrier
    Priced{Collective::kBarrier, "recursive_doubling", doubling_barrier_us},
    Priced{Collective::kBarrier, "linear",
           [](const CostQuery& q) { return 2 * collectives::fan_step_us(q, 0.0); }},
    Priced{
        Collective::kBarrier, "bruck",
        [](const CostQuery& q) { return as_railyard(Collective::kBarrier, "dissemination", q); }},
    Priced{Collective::kBarrier, "tree",
           [](const CostQuery& q) { return 2 * collectives::binomial_us(q, 0.0, false); }},
    // bcast
    Priced{Collective::kBcast, "basic_linear",
           [](const CostQuery& q) { return collectives::fan_step_us(q, whole_of(q)); }},
    Priced{Collective::kBcast, "chain",
           [](const CostQuery& q) { return chain_us(q, whole_of(q), false); }},
    Priced{Collective::kBcast, "pipeline",
           [](const CostQuery& q) { return chain_us(q, whole_of(q), false); }},
    Priced{Collective::kBcast, "binary_tree",
           [](const CostQuery& q) { return binary_tree_us(q, whole_of(q), false); }},
    // Each half down its own subtree, then the halves swapped.
    Priced{Collective::kBcast, "split_binary_tree",
           [](const CostQuery& q) {
             return binary_tree_us(q, whole_of(q) / 2, false) +
                    collectives::shift_step_us(q, whole_of(q) / 2, std::max(q.ranks / 2, 1));
           }},
    Priced{Collective::kBcast, "binomial",
           [](const CostQuery& q) { return as_railyard(Collective::kBcast, "binomial", q); }},
    Priced{Collective::kBcast, "knomial",
           [](const CostQuery& q) { return knomial_us(q, whole_of(q), 4, false); }},
    Priced{Collective::kBcast, "scatter_allgather",
           [](const CostQuery& q) {
             return binomial_scatter_us(q, block_of(q)) + doubling_allgather_us(q);
           }},
    // allreduce
    Priced{Collective::kAllreduce, "nonoverlapping",
           [](const CostQuery& q) { return reduce_choice_us(q) + bcast_choice_us(q); }},
    Priced{Collective::kAllreduce, "recursive_doubling",
           [](const CostQuery& q) {
             return as_railyard(Collective::kAllreduce, "recursive_doubling", q);
           }},
    Priced{Collective::kAllreduce, "ring",
           [](const CostQuery& q) { return as_railyard(Collective::kAllreduce, "ring", q); }},
    Priced{Collective::kAllreduce, "segmented_ring",
           [](const CostQuery& q) { return as_railyard(Collective::kAllreduce, "ring", q); }},
    Priced{
        Collective::kAllreduce, "rabenseifner",
        [](const CostQuery& q) { return as_railyard(Collective::kAllreduce, "rabenseifner", q); }},
    // reduce
    Priced{Collective::kReduce, "linear",
           [](const CostQuery& q) {
             return collectives::fan_step_us(q, whole_of(q)) +
                    (q.ranks - 1) * collectives::reduce_us(q, whole_of(q));
           }},
    Priced{Collective::kReduce, "chain",
           [](const CostQuery& q) { return chain_us(q, whole_of(q), true); }},
    Priced{Collective::kReduce, "pipeline",
           [](const CostQuery& q) { return chain_us(q, whole_of(q), true); }},
    Priced{Collective::kReduce, "binary",
           [](const CostQuery& q) { return binary_tree_us(q, whole_of(q), true); }},
    Priced{Collective::kReduce, "in-order_binary",
           [](const CostQuery& q) { return binary_tree_us(q, whole_of(q), true); }},
    Priced{Collective::kReduce, "binomial",
           [](const CostQuery& q) { return as_railyard(Collective::kReduce, "binomial", q); }},
    Priced{Collective::kReduce, "rabenseifner",
           [](const CostQuery& q) {
             const double block = whole_of(q) / collectives::floor_pow2(q.ranks);
             return halving_us(q, whole_of(q), false) + binomial_gather_us(q, block);
           }},
    // allgather
    Priced{Collective::kAllgather, "two_proc",
           [](const CostQuery& q) { return collectives::xor_step_us(q, block_of(q), 1); }},
    Priced{Collective::kAllgather, "recursive_doubling",
           [](const CostQuery& q) { return doubling_allgather_us(q); }},
    Priced{Collective::kAllgather, "bruck",
           [](const CostQuery& q) { return as_railyard(Collective::kAllgather, "bruck", q); }},
    Priced{Collective::kAllgather, "ring",
           [](const CostQuery& q) { return as_railyard(Collective::kAllgather, "ring", q); }},
    Priced{Collective::kAllgather, "neighbor",
           [](const CostQuery& q) { return neighbor_allgather_us(q, block_of(q)); }},
    // reduce_scatter_block
    Priced{Collective::kReduceScatter, "basic_linear",
           [](const CostQuery& q) { return reduce_choice_us(q) + scatter_choice_us(q); }},
    Priced{Collective::kReduceScatter, "recursive_doubling",
           [](const CostQuery& q) {
             double total = collectives::fold_us(q, whole_of(q), true);
             for (int mask = 1; mask < collectives::floor_pow2(q.ranks); mask *= 2) {
               total += collectives::xor_step_us(q, whole_of(q), mask) +
                        collectives::reduce_us(q, whole_of(q));
             }
             return total;
           }},
    Priced{Collective::kReduceScatter, "recursive_halving",
           [](const CostQuery& q) { return halving_us(q, whole_of(q), false); }},
    Priced{Collective::kReduceScatter, "butterfly",
           [](const CostQuery& q) { return halving_us(q, whole_of(q), true); }},
    // alltoall
    Priced{Collective::kAlltoall, "pairwise",
           [](const CostQuery& q) { return as_railyard(Collective::kAlltoall, "pairwise", q); }},
    Priced{Collective::kAlltoall, "two_proc",
           [](const CostQuery& q) { return collectives::xor_step_us(q, block_of(q), 1); }},
    Priced{Collective::kAlltoall, "linear",
           [](const CostQuery& q) { return linear_alltoall_us(q, block_of(q)); }},
    Priced{Collective::kAlltoall, "linear_sync",
           [](const CostQuery& q) { return linear_alltoall_us(q, block_of(q)); }},
    Priced{Collective::kAlltoall, "modified_bruck",
           [](const CostQuery& q) { return modified_bruck_us(q, block_of(q)); }},
    // gather and scatter
    Priced{Collective::kGather, "basic_linear",
           [](const CostQuery& q) { return collectives::fan_step_us(q, block_of(q)); }},
    Priced{Collective::kGather, "linear_sync",
           [](const CostQuery& q) { return collectives::fan_step_us(q, block_of(q)); }},
    Priced{Collective::kGather, "binomial",
           [](const CostQuery& q) { return binomial_gather_us(q, block_of(q)); }},
    Priced{Collective::kScatter, "basic_linear",
           [](const CostQuery& q) { return collectives::fan_step_us(q, block_of(q)); }},
    Priced{Collective::kScatter, "linear_nb",
           [](const CostQuery& q) { return collectives::fan_step_us(q, block_of(q)); }},
    Priced{Collective::kScatter, "binomial",
           [](const CostQuery& q) { return binomial_scatter_us(q, block_of(q)); }},
};

double price(Collective collective, std::string_view algorithm, const CostQuery& query) {
  const auto* found = std::ranges::find_if(kPriced, [&](const Priced& entry) {
    return entry.collective == collective && entry.algorithm == algorithm;
  });
  if (found == kPriced.end()) {
    throw std::logic_error(fmt::format("no model of Open MPI's {} algorithm '{}'",
                                       collectives::to_string(collective), algorithm));
  }
  return found->cost(query);
}

double choice_us(Collective collective, const CostQuery& query) {
  return price(collective, decide(collective, query), query);
}

double reduce_choice_us(const CostQuery& query) { return choice_us(Collective::kReduce, query); }
double bcast_choice_us(const CostQuery& query) { return choice_us(Collective::kBcast, query); }
double scatter_choice_us(const CostQuery& query) { return choice_us(Collective::kScatter, query); }

}  // namespace

OpenMpiChoice openmpi_choice(Collective collective, const CostQuery& query) {
  const Collective form = equal_form(collective);
  const std::string_view algorithm = decide(form, query);
  return {algorithm, price(form, algorithm, query)};
}

}  // namespace railyard::info
