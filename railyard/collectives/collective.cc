#include "railyard/collectives/collective.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

namespace railyard::collectives {
namespace {

constexpr std::array<std::string_view, kCollectiveCount> kCollectiveNames{
    "barrier",  "bcast",      "allreduce", "allgather",      "reduce_scatter",
    "reduce",   "alltoall",   "gather",    "scatter",        "gatherv",
    "scatterv", "allgatherv", "alltoallv", "reduce_scatterv"};

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

std::string collective_names() { return fmt::format("{}", fmt::join(kCollectiveNames, ", ")); }

}  // namespace railyard::collectives
