#include "railyard/mpi_shim/detail/shim_options.h"

#include <fmt/format.h>

#include <vector>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::mpi_shim {
namespace {

constexpr const char* kCollectivesVariable = "RAILYARD_MPI_COLLECTIVES";

std::string expected_collectives() {
  std::vector<std::string> names;
  names.reserve(kAllMpiCollectives.size());
  for (const MpiCollective collective : kAllMpiCollectives) {
    names.emplace_back(to_string(collective));
  }
  return fmt::format("expected all, none, or a comma list of {}", join_list(names, "and"));
}

void parse_collectives(const std::string& text, ShimOptions& options) {
  const std::string_view whole = trim(text);
  if (iequals(whole, "all")) {
    options.enabled.fill(true);
    return;
  }
  options.enabled.fill(false);
  if (iequals(whole, "none")) {
    return;
  }
  for (const std::string_view piece : split(whole, ',')) {
    const std::string_view name = trim(piece);
    bool known = false;
    for (const MpiCollective collective : kAllMpiCollectives) {
      if (iequals(name, to_string(collective))) {
        options.enabled[static_cast<std::size_t>(collective)] = true;
        known = true;
      }
    }
    if (!known) {
      throw ConfigError(kCollectivesVariable, text,
                        fmt::format("'{}' is not a collective the shim carries; {}", name,
                                    expected_collectives()));
    }
  }
}

}  // namespace

std::string ShimOptions::enabled_list() const {
  std::vector<std::string_view> names;
  for (const MpiCollective collective : kAllMpiCollectives) {
    if (takes(collective)) {
      names.push_back(to_string(collective));
    }
  }
  return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ","));
}

ShimOptions ShimOptions::from_environment() {
  ShimOptions options;
  if (const auto text = env::get(kCollectivesVariable)) {
    parse_collectives(*text, options);
  }
  if (const auto text = env::get("RAILYARD_MPI_MIN_BYTES")) {
    options.carry = CarryTable::parse("RAILYARD_MPI_MIN_BYTES", *text);
  }
  if (const auto text = env::get("RAILYARD_MPI_VERBOSE")) {
    options.verbose = static_cast<int>(parse_uint("RAILYARD_MPI_VERBOSE", *text, 0, 2));
  }
  return options;
}

}  // namespace railyard::mpi_shim
