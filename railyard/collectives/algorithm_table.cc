#include "railyard/collectives/algorithm_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <limits>

#include "railyard/collectives/detail/algorithms.h"
#include "railyard/common/error.h"
#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::comm {
namespace {

constexpr std::array<std::string_view, 14> kCollectiveNames{
    "barrier",  "bcast",      "allreduce", "allgather",      "reduce_scatter",
    "reduce",   "alltoall",   "gather",    "scatter",        "gatherv",
    "scatterv", "allgatherv", "alltoallv", "reduce_scatterv"};

constexpr std::array<Algorithm, 20> kAlgorithms{{
    {Collective::kBarrier, "dissemination",
     "ceil(log2 p) rounds; in round k each rank signals the rank 2^k after it",
     detail::barrier_dissemination},
    {Collective::kBcast, "binomial",
     "binomial tree from the root: ceil(log2 p) steps, the whole vector each",
     detail::bcast_binomial},
    {Collective::kBcast, "scatter_allgather",
     "the root scatters p blocks, then a ring allgather: for long vectors on 3 ranks or more",
     detail::bcast_scatter_allgather},
    {Collective::kAllreduce, "recursive_doubling",
     "log2 steps exchanging the whole vector; ranks past a power of two fold in first",
     detail::allreduce_recursive_doubling},
    {Collective::kAllreduce, "rabenseifner",
     "reduce-scatter by recursive halving, allgather by recursive doubling: 2 log2 p steps",
     detail::allreduce_rabenseifner},
    {Collective::kAllreduce, "ring",
     "ring reduce-scatter then ring allgather: 2(p-1) steps of 1/p of the vector",
     detail::allreduce_ring},
    {Collective::kAllreduce, "split_rail",
     "several ranks per host: reduce-scatter within each host, one allreduce per local rank "
     "across hosts side by side, allgather within each host; pipelined in segments",
     detail::allreduce_split_rail},
    {Collective::kAllreduce, "shared_segment",
     "one host, blocking calls: copy into a segment every rank maps, reduce 1/p of it each, copy "
     "the result out; 2 barriers per 512 KiB chunk, no messages",
     detail::allreduce_shared_segment},
    {Collective::kAllgather, "ring", "p-1 steps, each passing one rank's block to the next rank",
     detail::allgather_ring},
    {Collective::kAllgather, "recursive_doubling",
     "ceil(log2 p) steps doubling the blocks held (Bruck's, any p): for small blocks",
     detail::allgather_bruck},
    {Collective::kReduceScatter, "ring",
     "p-1 steps, each reducing one block into what the previous rank passed on",
     detail::reduce_scatter_ring},
    {Collective::kReduce, "binomial",
     "binomial tree into the root: ceil(log2 p) steps, the whole vector each",
     detail::reduce_binomial},
    {Collective::kAlltoall, "pairwise",
     "p-1 steps; in step s each rank sends to rank r+s and receives from rank r-s",
     detail::alltoall_pairwise},
    {Collective::kGather, "linear",
     "every rank sends its block to the root, which receives them all at once",
     detail::gather_linear},
    {Collective::kScatter, "linear",
     "the root sends every rank its block at once, each rank receives one", detail::scatter_linear},
    {Collective::kGatherv, "linear",
     "every rank sends its block to the root, which receives them all at once",
     detail::gather_linear},
    {Collective::kScatterv, "linear",
     "the root sends every rank its block at once, each rank receives one", detail::scatter_linear},
    {Collective::kAllgatherv, "ring",
     "p-1 steps, each passing one rank's block (of its own length) to the next rank",
     detail::allgatherv_ring},
    {Collective::kAlltoallv, "pairwise",
     "p-1 steps; in step s each rank sends to rank r+s and receives from rank r-s",
     detail::alltoallv_pairwise},
    {Collective::kReduceScatterv, "ring",
     "p-1 steps, each reducing one block (of its own length) into what the previous rank passed "
     "on",
     detail::reduce_scatterv_ring},
}};

// The end of a range that has none ("inf").
constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();

// Below this an allreduce takes recursive doubling: its log2(p) steps of
// the whole vector beat the others' twice as many steps while the vector is
// small (UCC switches at 4 KiB, oneCCL at 8 KiB); from it, Rabenseifner's.
constexpr std::size_t kAllreduceHalvingFrom = std::size_t{16} * 1024;
// From here the ring: the same volume as Rabenseifner's, between neighbours
// only, its reduction overlapping its transfers (MPICH and UCC keep
// recursive halving for medium vectors; this switch is not yet measured).
constexpr std::size_t kAllreduceRingFrom = std::size_t{1} << 20;

// From here an allreduce over hosts that each run several ranks (the same
// number) takes the split-rail hierarchy: below it the same-host steps it
// adds cost more than the network volume it saves. Measured on the emulated
// hosts (2 x 2 ranks, 4 rails at 1 Gbit/s; docs/benchmarks.md, "Split-rail
// from 16 KiB"): 0.45-0.54x the flat algorithms' time from 64 KiB to
// 512 KiB, 0.57-0.82x at 16-32 KiB, but 1.05-1.11x at 8 KiB and up to
// 1.34x at 1 KiB, where its extra same-host steps cost more than they save.
constexpr std::size_t kAllreduceSplitRailFrom = std::size_t{16} * 1024;

// From here an allreduce of ranks that all share one host goes through a
// host segment (blocking calls; the others fall back to the choices below).
// Measured on 1 host x 4 ranks (docs/benchmarks.md, "The host segment"):
// 0.57-0.96x the time of the algorithms over messages at 8 B to 512 B
// (the means of two runs), 0.15-0.31x from 4 KiB on.
constexpr std::size_t kAllreduceSharedSegmentFrom = 0;

// A broadcast from this size takes the scatter and ring allgather (MPICH's
// default switch for long messages, 512 KiB; not yet measured here).
constexpr std::size_t kBcastScatterFrom = std::size_t{512} * 1024;

// Below this (the whole result) an allgather takes Bruck's log2 p steps
// rather than the ring's p - 1 (MPICH switches at 80 KiB for non-powers of
// two; not yet measured here).
constexpr std::size_t kAllgatherRingFrom = std::size_t{64} * 1024;

// The algorithm of `collective` called `name`, or null.
constexpr const Algorithm* find(Collective collective, std::string_view name) noexcept {
  for (const Algorithm& entry : kAlgorithms) {
    if (entry.collective == collective && entry.name == name) {
      return &entry;
    }
  }
  return nullptr;
}

// The built-in choices, looked up once, when compiled (a name the table
// lacks would dereference null there, which does not compile).
constexpr const Algorithm& kDissemination = *find(Collective::kBarrier, "dissemination");
constexpr const Algorithm& kBcastBinomial = *find(Collective::kBcast, "binomial");
constexpr const Algorithm& kBcastScatterAllgather = *find(Collective::kBcast, "scatter_allgather");
constexpr const Algorithm& kReduceBinomial = *find(Collective::kReduce, "binomial");
constexpr const Algorithm& kAllreduceDoubling = *find(Collective::kAllreduce, "recursive_doubling");
constexpr const Algorithm& kAllreduceRing = *find(Collective::kAllreduce, "ring");
constexpr const Algorithm& kAllreduceRabenseifner = *find(Collective::kAllreduce, "rabenseifner");
constexpr const Algorithm& kAllreduceSplitRail = *find(Collective::kAllreduce, "split_rail");
constexpr const Algorithm& kAllreduceSharedSegment =
    *find(Collective::kAllreduce, "shared_segment");
constexpr const Algorithm& kAllgatherRing = *find(Collective::kAllgather, "ring");
constexpr const Algorithm& kAllgatherDoubling = *find(Collective::kAllgather, "recursive_doubling");
constexpr const Algorithm& kReduceScatterRing = *find(Collective::kReduceScatter, "ring");
constexpr const Algorithm& kAlltoallPairwise = *find(Collective::kAlltoall, "pairwise");
constexpr const Algorithm& kGatherLinear = *find(Collective::kGather, "linear");
constexpr const Algorithm& kScatterLinear = *find(Collective::kScatter, "linear");
constexpr const Algorithm& kGathervLinear = *find(Collective::kGatherv, "linear");
constexpr const Algorithm& kScattervLinear = *find(Collective::kScatterv, "linear");
constexpr const Algorithm& kAllgathervRing = *find(Collective::kAllgatherv, "ring");
constexpr const Algorithm& kAlltoallvPairwise = *find(Collective::kAlltoallv, "pairwise");
constexpr const Algorithm& kReduceScattervRing = *find(Collective::kReduceScatterv, "ring");

std::string names_of(Collective collective) {
  std::string out;
  for (const Algorithm& entry : kAlgorithms) {
    if (entry.collective == collective) {
      out += fmt::format("{}{}", out.empty() ? "" : ", ", entry.name);
    }
  }
  return out;
}

}  // namespace

std::string_view to_string(Collective collective) noexcept {
  return kCollectiveNames[static_cast<std::size_t>(collective)];
}

std::optional<Collective> collective_named(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i) {
    if (kCollectiveNames[i] == name) {
      return static_cast<Collective>(i);
    }
  }
  return std::nullopt;
}

std::span<const Algorithm> all_algorithms() noexcept { return kAlgorithms; }

AlgorithmTable::AlgorithmTable(std::string_view input, std::string_view spec) : spec_(spec) {
  const std::string variable(input);
  const std::string collectives = fmt::format("{}", fmt::join(kCollectiveNames, ", "));
  for (const std::string_view raw : split(spec, ';')) {
    const std::string_view entry = trim(raw);
    if (entry.empty()) {
      continue;  // a trailing ';'
    }
    const std::vector<std::string_view> parts = split(entry, ':');
    if (parts.size() != 3) {
      throw ConfigError(variable, std::string(spec),
                        fmt::format("entry '{}' is not COLLECTIVE:FROM-TO:ALGORITHM (e.g. "
                                    "allreduce:0-8k:recursive_doubling)",
                                    entry));
    }
    const auto collective = collective_named(trim(parts[0]));
    if (!collective) {
      throw ConfigError(variable, std::string(spec),
                        fmt::format("entry '{}' names no collective '{}'; there are {}", entry,
                                    trim(parts[0]), collectives));
    }
    const std::vector<std::string_view> bounds = split(trim(parts[1]), '-');
    const auto from = bounds.size() == 2 ? try_parse_size(trim(bounds[0])) : std::nullopt;
    // "inf": no end.
    std::optional<std::uint64_t> to;
    if (bounds.size() == 2) {
      to = trim(bounds[1]) == "inf" ? kNoEnd : try_parse_size(trim(bounds[1]));
    }
    if (!from || !to || *to <= *from) {
      throw ConfigError(variable, std::string(spec),
                        fmt::format("entry '{}' has the range '{}'; expected FROM-TO in bytes "
                                    "(k, m, g suffixes) with FROM below TO, or FROM-inf",
                                    entry, trim(parts[1])));
    }
    const std::string_view name = trim(parts[2]);
    const Algorithm* chosen = find(*collective, name);
    if (chosen == nullptr) {
      throw ConfigError(variable, std::string(spec),
                        fmt::format("entry '{}' names no {} algorithm '{}'; there are {}", entry,
                                    to_string(*collective), name, names_of(*collective)));
    }
    overrides_.push_back(Override{*collective, *from, *to, chosen});
  }
}

AlgorithmTable AlgorithmTable::from_environment() {
  if (const auto text = env::get("RAILYARD_ALGO")) {
    return {"RAILYARD_ALGO", *text};
  }
  return {};
}

const Algorithm& AlgorithmTable::choose(Collective collective, std::size_t bytes, int ranks,
                                        HostShape hosts) const noexcept {
  for (const Override& entry : overrides_) {
    if (entry.collective == collective && bytes >= entry.from &&
        (bytes < entry.to || entry.to == kNoEnd)) {
      return *entry.algorithm;
    }
  }
  switch (collective) {
    case Collective::kBarrier:
      return kDissemination;
    case Collective::kBcast:
      // On two ranks the scatter and the allgather each move half the vector
      // in a step of their own: no gain over one send.
      return bytes >= kBcastScatterFrom && ranks > 2 ? kBcastScatterAllgather : kBcastBinomial;
    case Collective::kReduce:
      return kReduceBinomial;
    case Collective::kAlltoall:
      return kAlltoallPairwise;
    case Collective::kAllreduce:
      // On two ranks the ring's two half-vector steps move what one swap
      // moves, in twice the steps; its overlap of reduction and transfer
      // did not pay for that on the emulated hosts (docs/benchmarks.md,
      // "Collectives against Open MPI": 0.90 of the rails at 4 MiB against
      // the swap's 0.99, the same 0.77-0.79 at 64 MiB).
      if (hosts.hosts > 1 && hosts.ranks_per_host > 1 && bytes >= kAllreduceSplitRailFrom) {
        return kAllreduceSplitRail;
      }
      if (hosts.hosts == 1 && hosts.ranks_per_host > 1 && bytes >= kAllreduceSharedSegmentFrom) {
        return kAllreduceSharedSegment;
      }
      if (ranks <= 2 || bytes < kAllreduceHalvingFrom) {
        return kAllreduceDoubling;
      }
      return bytes < kAllreduceRingFrom ? kAllreduceRabenseifner : kAllreduceRing;
    case Collective::kAllgather:
      return bytes < kAllgatherRingFrom ? kAllgatherDoubling : kAllgatherRing;
    case Collective::kReduceScatter:
      return kReduceScatterRing;
    case Collective::kGather:
      return kGatherLinear;
    case Collective::kScatter:
      return kScatterLinear;
    case Collective::kGatherv:
      return kGathervLinear;
    case Collective::kScatterv:
      return kScattervLinear;
    case Collective::kAllgatherv:
      return kAllgathervRing;
    case Collective::kAlltoallv:
      return kAlltoallvPairwise;
    case Collective::kReduceScatterv:
      return kReduceScattervRing;
  }
  return kDissemination;  // not reached: every collective is above
}

const Algorithm& AlgorithmTable::named(Collective collective, std::string_view name) {
  if (const Algorithm* found = find(collective, name)) {
    return *found;
  }
  throw UsageError(fmt::format("{} has no algorithm '{}'; it has {}", to_string(collective), name,
                               names_of(collective)));
}

}  // namespace railyard::comm
