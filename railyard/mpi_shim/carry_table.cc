#include "railyard/mpi_shim/detail/carry_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::mpi_shim {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;
using enum MpiCollective;
using enum Layout;

// Each range is a run of sizes where railyard's collective was at least as
// fast as Open MPI's own, on the slowest rank's time and on the ranks'
// average, or level with it where both carried the rails' line rate, in
// comparisons of 1 KiB-16 MiB vectors by factors of 4 on the emulated hosts
// (scripts/carry-table.py says which sizes meet the rule; docs/benchmarks.md,
// "The MPI shim's table", gives the runs). One rank a host: where both 2 x 1
// and 4 x 1 met it; several: 2 x 2; one host: 1 x 4 against Open MPI's
// shared memory. A row starts higher where the shim's own runs on that
// layout ("The MPI shim") found it behind at the size railyard-bench met.
// allgatherv and reduce_scatter (MPI_Reduce_scatter, the v-form) were
// measured on their own on several hosts; on one host they follow their
// collective. An alltoallv is carried at every size or none, so only where
// alltoall met it at every size measured: nowhere yet. The barrier was not
// measured and stays with MPI.
constexpr std::array kMeasured{
    // One host, 4 ranks.
    CarryRow{kAllreduce, kOneHost, 1 * kKiB},
    CarryRow{kBcast, kOneHost, 16 * kMiB},
    CarryRow{kAllgather, kOneHost, 4 * kMiB},
    CarryRow{kReduceScatterBlock, kOneHost, 64 * kKiB},
    CarryRow{kGather, kOneHost, 4 * kMiB},
    CarryRow{kScatter, kOneHost, 256, 16 * kKiB},
    // Several hosts, one rank each.
    CarryRow{kAllreduce, kOneRankPerHost, 64 * kKiB},
    CarryRow{kReduce, kOneRankPerHost, 64 * kKiB, 16 * kMiB},
    CarryRow{kBcast, kOneRankPerHost, 256 * kKiB},
    CarryRow{kAllgather, kOneRankPerHost, 64 * kKiB},
    CarryRow{kReduceScatterBlock, kOneRankPerHost, 64 * kKiB},
    CarryRow{kAlltoall, kOneRankPerHost, 512 * kKiB},
    CarryRow{kGather, kOneRankPerHost, 256 * kKiB},
    CarryRow{kScatter, kOneRankPerHost, 512 * kKiB},
    CarryRow{kAllgatherv, kOneRankPerHost, 1 * kMiB},
    CarryRow{kReduceScatter, kOneRankPerHost, 4 * kMiB},
    // Several hosts, several ranks each.
    CarryRow{kAllreduce, kSeveralRanksPerHost, 16 * kKiB},
    CarryRow{kReduce, kSeveralRanksPerHost, 256 * kKiB},
    CarryRow{kBcast, kSeveralRanksPerHost, 64 * kKiB},
    CarryRow{kAllgather, kSeveralRanksPerHost, 16 * kKiB},
    CarryRow{kReduceScatterBlock, kSeveralRanksPerHost, 64 * kKiB},
    CarryRow{kAlltoall, kSeveralRanksPerHost, 64 * kKiB},
    CarryRow{kGather, kSeveralRanksPerHost, 64 * kKiB},
    CarryRow{kScatter, kSeveralRanksPerHost, 256 * kKiB},
    CarryRow{kAllgatherv, kSeveralRanksPerHost, 16 * kKiB},
    CarryRow{kReduceScatter, kSeveralRanksPerHost, 4 * kMiB},
};

// The measured rows, and on one host each v-form's rows as its
// collective's: allgatherv as allgather, reduce_scatter as
// reduce_scatter_block.
constexpr bool follows_into_v_form(const CarryRow& row) {
  return row.layout == kOneHost &&
         (row.collective == kAllgather || row.collective == kReduceScatterBlock);
}
constexpr std::size_t kVForms = [] {
  std::size_t count = 0;
  for (const CarryRow& row : kMeasured) {
    count += static_cast<std::size_t>(follows_into_v_form(row));
  }
  return count;
}();
constexpr std::array<CarryRow, kMeasured.size() + kVForms> kBuiltin = [] {
  std::array<CarryRow, kMeasured.size() + kVForms> rows{};
  std::size_t next = 0;
  for (const CarryRow& row : kMeasured) {
    rows[next++] = row;
  }
  for (const CarryRow& row : kMeasured) {
    if (follows_into_v_form(row)) {
      CarryRow copy = row;
      copy.collective = row.collective == kAllgather ? kAllgatherv : kReduceScatter;
      rows[next++] = copy;
    }
  }
  return rows;
}();

std::string expected_form() {
  std::vector<std::string> names;
  names.reserve(kAllMpiCollectives.size());
  for (const MpiCollective collective : kAllMpiCollectives) {
    names.emplace_back(to_string(collective));
  }
  return fmt::format(
      "expected a byte count (e.g. 64k) for every collective, or a comma list of NAME=SIZE "
      "with at most one bare SIZE for the collectives not named, where NAME is one of {}",
      join_list(names, "or"));
}

std::optional<MpiCollective> collective_named(std::string_view name) {
  for (const MpiCollective collective : kAllMpiCollectives) {
    if (iequals(name, to_string(collective))) {
      return collective;
    }
  }
  return std::nullopt;
}

bool in_row(const CarryRow& row, MpiCollective collective, std::uint64_t bytes,
            Layout layout) noexcept {
  return row.collective == collective && row.layout == layout && bytes >= row.from &&
         (row.to == kNoEnd || bytes < row.to);
}

}  // namespace

Layout layout_of(int hosts, int ranks_per_host) noexcept {
  if (hosts <= 1) {
    return kOneHost;
  }
  return ranks_per_host == 1 ? kOneRankPerHost : kSeveralRanksPerHost;
}

std::string_view to_string(Layout layout) noexcept {
  switch (layout) {
    case kOneHost:
      return "one host";
    case kOneRankPerHost:
      return "one rank per host";
    case kSeveralRanksPerHost:
      return "several ranks per host";
  }
  return "?";
}

std::span<const CarryRow> builtin_carry_rows() noexcept { return kBuiltin; }

CarryTable CarryTable::parse(std::string_view variable, std::string_view text) {
  const std::string input(variable);
  const std::string value(text);
  CarryTable table;
  std::optional<std::uint64_t> rest;
  for (const std::string_view piece : split(trim(text), ',')) {
    const std::string_view entry = trim(piece);
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos) {
      const auto size = try_parse_size(entry);
      if (!size) {
        throw ConfigError(input, value,
                          fmt::format("'{}' is not a size; {}", entry, expected_form()));
      }
      if (rest) {
        throw ConfigError(input, value,
                          fmt::format("it gives two sizes for every collective ({} and '{}'); {}",
                                      *rest, entry, expected_form()));
      }
      rest = size;
      continue;
    }
    const std::string_view name = trim(entry.substr(0, equals));
    const auto collective = collective_named(name);
    if (!collective) {
      throw ConfigError(
          input, value,
          fmt::format("'{}' names no collective the shim carries; {}", entry, expected_form()));
    }
    const auto size = try_parse_size(trim(entry.substr(equals + 1)));
    if (!size) {
      throw ConfigError(input, value,
                        fmt::format("'{}' has no size after '='; {}", entry, expected_form()));
    }
    auto& slot = table.overrides_[static_cast<std::size_t>(*collective)];
    if (slot) {
      throw ConfigError(
          input, value,
          fmt::format("it names {} twice; {}", to_string(*collective), expected_form()));
    }
    slot = size;
  }
  if (rest) {
    for (auto& slot : table.overrides_) {
      if (!slot) {
        slot = rest;
      }
    }
  }
  return table;
}

std::string CarryTable::overrides_text() const {
  std::vector<std::string> entries;
  for (const MpiCollective collective : kAllMpiCollectives) {
    if (const auto& from = overrides_[static_cast<std::size_t>(collective)]) {
      entries.push_back(fmt::format("{}={}", to_string(collective), *from));
    }
  }
  return entries.empty() ? std::string("(unset)") : fmt::format("{}", fmt::join(entries, ","));
}

bool CarryTable::carries(MpiCollective collective, std::uint64_t bytes,
                         Layout layout) const noexcept {
  if (const auto& from = overrides_[static_cast<std::size_t>(collective)]) {
    return bytes >= *from;
  }
  return std::ranges::any_of(
      kBuiltin, [&](const CarryRow& row) { return in_row(row, collective, bytes, layout); });
}

bool CarryTable::carries_some(MpiCollective collective, Layout layout) const noexcept {
  return overridden(collective) || std::ranges::any_of(kBuiltin, [&](const CarryRow& row) {
           return row.collective == collective && row.layout == layout;
         });
}

std::uint64_t CarryTable::smallest(MpiCollective collective) const noexcept {
  if (const auto& from = overrides_[static_cast<std::size_t>(collective)]) {
    return *from;
  }
  std::uint64_t smallest = kNoEnd;
  for (const CarryRow& row : kBuiltin) {
    if (row.collective == collective) {
      smallest = std::min(smallest, row.from);
    }
  }
  return smallest;
}

std::string CarryTable::describe(MpiCollective collective, Layout layout) const {
  if (const auto& from = overrides_[static_cast<std::size_t>(collective)]) {
    return fmt::format("from {} (RAILYARD_MPI_MIN_BYTES)", describe_size(*from));
  }
  std::vector<std::string> ranges;
  for (const CarryRow& row : kBuiltin) {
    if (row.collective == collective && row.layout == layout) {
      ranges.push_back(row.to == kNoEnd ? fmt::format("from {}", describe_size(row.from))
                                        : fmt::format("from {} below {}", describe_size(row.from),
                                                      describe_size(row.to)));
    }
  }
  return ranges.empty() ? std::string("at no size") : join_list(ranges, "and");
}

}  // namespace railyard::mpi_shim
