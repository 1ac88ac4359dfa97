#include "railyard/collectives/selection.h"
#include "railyard/collectives/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::collectives {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;
// The end of a range that has none ("inf").
constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();
using Hosts = BuiltinChoice::Hosts;

// The built-in choice, first row that fits wins. The switch points are
// measured on the emulated hosts (docs/benchmarks.md, "Tuning choices");
// past what they reach (more hosts or ranks a host), taken from the cost
// model's projection (docs/benchmarks.md, "Cost model"); or, where the
// docs say so, from MPICH's and UCC's defaults.
constexpr auto kBuiltin = std::to_array<BuiltinChoice>({
    {.collective = Collective::kBarrier, .algorithm = "dissemination"},
    // Long vectors over several hosts: segments down a chain of one rank
    // per host cross each host's link once, where the binomial tree sends
    // the whole vector log2 p times; on two hosts it crosses once too. The
    // chain takes a segment's time per host to fill: on more hosts, from
    // longer vectors.
    {.collective = Collective::kBcast,
     .algorithm = "pipeline",
     .from = 64 * kKiB,
     .min_hosts = 3,
     .max_hosts = 4},
    {.collective = Collective::kBcast,
     .algorithm = "pipeline",
     .from = 128 * kKiB,
     .hosts = Hosts::kSeveral,
     .max_hosts = 2},
    {.collective = Collective::kBcast,
     .algorithm = "pipeline",
     .from = 256 * kKiB,
     .min_hosts = 5,
     .max_hosts = 16},
    {.collective = Collective::kBcast,
     .algorithm = "pipeline",
     .from = 1 * kMiB,
     .min_hosts = 17,
     .max_hosts = 128},
    {.collective = Collective::kBcast, .algorithm = "pipeline", .from = 4 * kMiB, .min_hosts = 129},
    // Long vectors on one host: scatter, then a ring allgather; two ranks
    // gain nothing from cutting one send in two.
    {.collective = Collective::kBcast,
     .algorithm = "scatter_allgather",
     .from = 512 * kKiB,
     .min_ranks = 3,
     .max_hosts = 1},
    {.collective = Collective::kBcast, .algorithm = "binomial"},
    // Several ranks on each of several hosts: each host's vector crosses
    // the network once, split over its ranks; with many ranks a host, the
    // same-host passes cost more than Rabenseifner's steps below 1 MiB.
    {.collective = Collective::kAllreduce,
     .algorithm = "split_rail",
     .from = 16 * kKiB,
     .hosts = Hosts::kSeveralWithSeveralRanks,
     .max_ranks_per_host = 4},
    {.collective = Collective::kAllreduce,
     .algorithm = "split_rail",
     .from = 1 * kMiB,
     .hosts = Hosts::kSeveralWithSeveralRanks},
    // One host: through memory its ranks share, with no message.
    {.collective = Collective::kAllreduce,
     .algorithm = "shared_segment",
     .hosts = Hosts::kOneWithSeveralRanks},
    // Two ranks: one swap moves the least, at any size.
    {.collective = Collective::kAllreduce, .algorithm = "recursive_doubling", .max_ranks = 2},
    // Short vectors: log2 p steps of the whole vector beat twice as many
    // shorter ones; on many ranks, only the shortest.
    {.collective = Collective::kAllreduce,
     .algorithm = "recursive_doubling",
     .to = 16 * kKiB,
     .max_ranks = 8},
    {.collective = Collective::kAllreduce, .algorithm = "recursive_doubling", .to = 4 * kKiB},
    {.collective = Collective::kAllreduce, .algorithm = "rabenseifner", .to = 1 * kMiB},
    {.collective = Collective::kAllreduce, .algorithm = "ring"},
    // Short blocks: ceil(log2 p) doubling steps; on many ranks the ring's
    // p - 1 steps cost more up to longer vectors. With one rank a host the
    // exchanges with rank r xor d (measured faster on 4 x 1, and there up
    // to 1 MiB, where both carry the line rate; on 3 ranks they are Bruck's
    // shifts, at 0.65 of Open MPI's speed at 256 KiB on 3 x 1), else
    // Bruck's shifts (measured faster on 2 x 2).
    {.collective = Collective::kAllgather,
     .algorithm = "recursive_doubling",
     .to = 1 * kMiB,
     .min_ranks = 4,
     .max_ranks = 4,
     .hosts = Hosts::kSeveral,
     .max_ranks_per_host = 1},
    {.collective = Collective::kAllgather,
     .algorithm = "recursive_doubling",
     .to = 64 * kKiB,
     .hosts = Hosts::kSeveral,
     .max_ranks_per_host = 1},
    {.collective = Collective::kAllgather,
     .algorithm = "recursive_doubling",
     .to = 1 * kKiB,
     .hosts = Hosts::kSeveral,
     .max_ranks_per_host = 1,
     .per_rank = true},
    {.collective = Collective::kAllgather, .algorithm = "bruck", .to = 64 * kKiB},
    {.collective = Collective::kAllgather, .algorithm = "bruck", .to = 1 * kKiB, .per_rank = true},
    {.collective = Collective::kAllgather, .algorithm = "ring"},
    // Short blocks: log2 p halving steps where the ring takes p - 1.
    {.collective = Collective::kReduceScatter,
     .algorithm = "recursive_halving",
     .to = 8 * kKiB,
     .per_rank = true},
    {.collective = Collective::kReduceScatter, .algorithm = "ring"},
    {.collective = Collective::kReduce, .algorithm = "binomial"},
    // Short blocks: Bruck's log2 p packed steps where the pairwise
    // exchange sends p - 1 messages.
    {.collective = Collective::kAlltoall, .algorithm = "bruck", .to = 256, .per_rank = true},
    {.collective = Collective::kAlltoall, .algorithm = "pairwise"},
    // Short blocks on many ranks: log2 p messages at the root where the
    // linear forms post p - 1.
    {.collective = Collective::kGather,
     .algorithm = "binomial",
     .to = 256,
     .min_ranks = 33,
     .per_rank = true},
    {.collective = Collective::kGather,
     .algorithm = "binomial",
     .to = 8 * kKiB,
     .min_ranks = 257,
     .per_rank = true},
    {.collective = Collective::kGather, .algorithm = "linear"},
    {.collective = Collective::kScatter,
     .algorithm = "binomial",
     .to = 256,
     .min_ranks = 33,
     .per_rank = true},
    {.collective = Collective::kScatter,
     .algorithm = "binomial",
     .to = 8 * kKiB,
     .min_ranks = 257,
     .per_rank = true},
    {.collective = Collective::kScatter, .algorithm = "linear"},
    {.collective = Collective::kGatherv, .algorithm = "linear"},
    {.collective = Collective::kScatterv, .algorithm = "linear"},
    {.collective = Collective::kAllgatherv, .algorithm = "ring"},
    {.collective = Collective::kAlltoallv, .algorithm = "pairwise"},
    {.collective = Collective::kReduceScatterv, .algorithm = "ring"},
});

bool fits(const BuiltinChoice& row, std::uint64_t bytes, int ranks, HostShape hosts) noexcept {
  const std::uint64_t measured =
      row.per_rank ? bytes / static_cast<std::uint64_t>(std::max(ranks, 1)) : bytes;
  if (measured < row.from || (row.to != kNoEnd && measured >= row.to) || ranks < row.min_ranks ||
      ranks > row.max_ranks || hosts.hosts < row.min_hosts || hosts.hosts > row.max_hosts ||
      (hosts.ranks_per_host > row.max_ranks_per_host)) {
    return false;
  }
  switch (row.hosts) {
    case Hosts::kAny:
      return true;
    case Hosts::kSeveral:
      return hosts.hosts > 1;
    case Hosts::kOneWithSeveralRanks:
      return hosts.hosts == 1 && hosts.ranks_per_host > 1;
    case Hosts::kSeveralWithSeveralRanks:
      return hosts.hosts > 1 && hosts.ranks_per_host > 1;
  }
  return false;
}

// The built-in rows' algorithms, looked up in the registry at first use
// (the registry is full once the library has loaded).
const std::array<const Algorithm*, kBuiltin.size()>& builtin_algorithms() {
  static const auto resolved = [] {
    std::array<const Algorithm*, kBuiltin.size()> out{};
    for (std::size_t i = 0; i < kBuiltin.size(); ++i) {
      out[i] = find_algorithm(kBuiltin[i].collective, kBuiltin[i].algorithm);
      if (out[i] == nullptr) {
        // A row naming an algorithm no file registers: found by any test run.
        std::fprintf(stderr, "railyard: the built-in table names no %s algorithm '%.*s'\n",
                     to_string(kBuiltin[i].collective).data(),
                     static_cast<int>(kBuiltin[i].algorithm.size()), kBuiltin[i].algorithm.data());
        std::abort();
      }
    }
    return out;
  }();
  return resolved;
}

}  // namespace

std::span<const BuiltinChoice> builtin_choices() noexcept { return kBuiltin; }

AlgorithmTable::AlgorithmTable(std::string_view input, std::string_view spec) : spec_(spec) {
  const std::string variable(input);
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
                                    trim(parts[0]), collective_names()));
    }
    const std::vector<std::string_view> bounds = split(trim(parts[1]), '-');
    const auto from = bounds.size() == 2 ? try_parse_size(trim(bounds[0])) : std::nullopt;
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
    const Algorithm* chosen = find_algorithm(*collective, name);
    if (chosen == nullptr) {
      throw ConfigError(variable, std::string(spec),
                        fmt::format("entry '{}' names no {} algorithm '{}'; there are {}", entry,
                                    to_string(*collective), name, algorithm_names(*collective)));
    }
    overrides_.push_back(Override{*collective, *from, *to, chosen});
  }
}

const Algorithm& AlgorithmTable::choose(Collective collective, std::size_t bytes, int ranks,
                                        HostShape hosts) const noexcept {
  for (const Override& entry : overrides_) {
    if (entry.collective == collective && bytes >= entry.from &&
        (bytes < entry.to || entry.to == kNoEnd)) {
      return *entry.algorithm;
    }
  }
  const auto& algorithms = builtin_algorithms();
  for (std::size_t i = 0; i < kBuiltin.size(); ++i) {
    if (kBuiltin[i].collective == collective && fits(kBuiltin[i], bytes, ranks, hosts)) {
      return *algorithms[i];
    }
  }
  // Every collective has a last row that fits any call.
  std::fprintf(stderr, "railyard: the built-in table has no row for %s\n",
               to_string(collective).data());
  std::abort();
}

const Algorithm& AlgorithmTable::named(Collective collective, std::string_view name) {
  if (const Algorithm* found = find_algorithm(collective, name)) {
    return *found;
  }
  throw UsageError(fmt::format("{} has no algorithm '{}'; it has {}", to_string(collective), name,
                               algorithm_names(collective)));
}

}  // namespace railyard::collectives
