// Which algorithm a collective of a given size runs on a given team: the
// built-in table of size ranges, or the one RAILYARD_ALGO names for a range
// (docs/environment.md), e.g.
//   allreduce:0-8k:recursive_doubling;allreduce:8k-inf:ring
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/collectives/collective.h"

namespace railyard::collectives {

struct Algorithm;  // registry.h

class AlgorithmTable {
 public:
  // The built-in choice alone.
  AlgorithmTable() = default;
  // With the overrides of `spec` (RAILYARD_ALGO's grammar); throws
  // ConfigError naming `input` and the entry at fault.
  AlgorithmTable(std::string_view input, std::string_view spec);

  // The algorithm for `bytes` (the whole vector a rank contributes or
  // receives) on `ranks` ranks spread over hosts as `hosts` says.
  [[nodiscard]] const Algorithm& choose(Collective collective, std::size_t bytes, int ranks,
                                        HostShape hosts = {}) const noexcept;
  // The algorithm of `collective` called `name`; UsageError naming it and
  // the collective's algorithms otherwise.
  [[nodiscard]] static const Algorithm& named(Collective collective, std::string_view name);

  // The overrides, as given ("" when none).
  [[nodiscard]] const std::string& spec() const noexcept { return spec_; }

 private:
  struct Override {
    Collective collective;
    std::uint64_t from;  // bytes, inclusive
    std::uint64_t to;    // bytes, exclusive; UINT64_MAX: no end
    const Algorithm* algorithm;
  };

  std::string spec_;
  std::vector<Override> overrides_;
};

// The built-in table's rows, for railyard-info and tests: from `from` bytes
// (inclusive) to `to` (exclusive), on teams that fit, `algorithm` runs; the
// first row that fits wins. The bytes are the whole vector's (Call::bytes),
// or one rank's block of it where `per_rank` says so.
struct BuiltinChoice {
  enum class Hosts : std::uint8_t {
    kAny,
    kSeveral,                  // more than one host
    kOneWithSeveralRanks,      // one host, more than one rank on it
    kSeveralWithSeveralRanks,  // several hosts, the same number of ranks on each, more than one
  };
  Collective collective;
  std::string_view algorithm;
  std::uint64_t from = 0;
  std::uint64_t to = UINT64_MAX;
  int min_ranks = 1;
  int max_ranks = INT32_MAX;
  Hosts hosts = Hosts::kAny;
  int min_hosts = 1;
  int max_hosts = INT32_MAX;
  int max_ranks_per_host = INT32_MAX;  // on teams of the same number on each host
  bool per_rank = false;
};
[[nodiscard]] std::span<const BuiltinChoice> builtin_choices() noexcept;

}  // namespace railyard::collectives
