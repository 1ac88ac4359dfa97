#include "railyard/collectives/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <tuple>

namespace railyard::collectives {
namespace {

// Filled while the library loads, before any call can read it, and kept in
// order as it fills; constant-initialised, so no registration comes before
// it is ready.
constexpr std::size_t kMaxAlgorithms = 64;
constinit std::array<const Algorithm*, kMaxAlgorithms> registered{};
constinit std::size_t registered_count = 0;

bool before(const Algorithm* left, const Algorithm* right) noexcept {
  return std::tie(left->collective, left->name) < std::tie(right->collective, right->name);
}

}  // namespace

Registration::Registration(const Algorithm& algorithm) noexcept : algorithm_(algorithm) {
  if (registered_count == kMaxAlgorithms) {
    // A build with more algorithms than room: found by any test run.
    std::fputs("railyard: too many collective algorithms for the registry\n", stderr);
    std::abort();
  }
  auto* const end = registered.begin() + registered_count;
  auto* const place = std::upper_bound(registered.begin(), end, &algorithm_, before);
  std::copy_backward(place, end, end + 1);
  *place = &algorithm_;
  ++registered_count;
}

std::span<const Algorithm* const> all_algorithms() noexcept {
  return {registered.data(), registered_count};
}

const Algorithm* find_algorithm(Collective collective, std::string_view name) noexcept {
  for (const Algorithm* algorithm : all_algorithms()) {
    if (algorithm->collective == collective && algorithm->name == name) {
      return algorithm;
    }
  }
  return nullptr;
}

std::string algorithm_names(Collective collective) {
  std::string out;
  for (const Algorithm* algorithm : all_algorithms()) {
    if (algorithm->collective == collective) {
      out += fmt::format("{}{}", out.empty() ? "" : ", ", algorithm->name);
    }
  }
  return out;
}

}  // namespace railyard::collectives
