#include "railyard/common/detail/local_rank.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "railyard/common/error.h"
#include "railyard/common/launch_identity.h"

namespace railyard {
namespace {

// A plain decimal count, nothing else.
std::optional<std::uint64_t> decimal(std::string_view text) {
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

unsigned slurm_tasks_on_node(std::string_view text, unsigned node) {
  constexpr const char* kExpected =
      "expected Slurm's tasks-per-node list: comma separated counts, each optionally repeated "
      "as N(xM), e.g. 2(x3),1";
  std::uint64_t index = 0;
  std::optional<unsigned> found;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    const std::size_t paren = entry.find('(');
    std::uint64_t repeat = 1;
    std::string_view count_text = entry.substr(0, paren);
    if (paren != std::string_view::npos) {
      const std::string_view repeat_text = entry.substr(paren);
      if (repeat_text.size() < 4 || repeat_text.substr(0, 2) != "(x" || repeat_text.back() != ')') {
        throw ConfigError("SLURM_TASKS_PER_NODE", std::string(text), kExpected);
      }
      const auto parsed = decimal(repeat_text.substr(2, repeat_text.size() - 3));
      if (!parsed || *parsed == 0) {
        throw ConfigError("SLURM_TASKS_PER_NODE", std::string(text), kExpected);
      }
      repeat = *parsed;
    }
    const auto count = decimal(count_text);
    if (!count || *count == 0 || *count > std::numeric_limits<unsigned>::max()) {
      throw ConfigError("SLURM_TASKS_PER_NODE", std::string(text), kExpected);
    }
    // The whole list is checked, not just up to this node's entry.
    if (!found && node < index + repeat) {
      found = static_cast<unsigned>(*count);
    }
    index += std::min<std::uint64_t>(repeat, std::uint64_t{node} + 1);
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  if (found) {
    return *found;
  }
  throw ConfigError("SLURM_TASKS_PER_NODE", std::string(text),
                    fmt::format("expected an entry for node {} (SLURM_NODEID)", node));
}

LocalRank local_rank_from_environment() {
  const LaunchIdentity identity = launch_identity_from_environment();
  LocalRank out;
  if (identity.local_rank) {
    out.rank = *identity.local_rank;
    out.size = identity.local_size.value_or(out.rank + 1);
    out.source = identity.local_rank_variable;
  }
  return out;
}

}  // namespace railyard
