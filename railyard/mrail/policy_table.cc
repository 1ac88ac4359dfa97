#include "railyard/mrail/policy_table.h"

#include <limits>
#include <optional>

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::mrail {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();
constexpr const char* kForm =
    "expected a comma list of <max_size>:<policy> with max_size a byte count (4096, 64k, 1m), "
    "ULONG_MAX or -1, and policy fixed, round-robin or striping";

std::optional<Policy> parse_policy(std::string_view text) {
  if (iequals(text, "fixed")) {
    return Policy::kFixed;
  }
  if (iequals(text, "round-robin")) {
    return Policy::kRoundRobin;
  }
  if (iequals(text, "striping")) {
    return Policy::kStriping;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_max_size(std::string_view text) {
  if (iequals(text, "ULONG_MAX") || text == "-1") {
    return kUnlimited;
  }
  return try_parse_size(text);
}

}  // namespace

const char* to_string(Policy policy) noexcept {
  switch (policy) {
    case Policy::kFixed:
      return "fixed";
    case Policy::kRoundRobin:
      return "round-robin";
    case Policy::kStriping:
      return "striping";
  }
  return "unknown";
}

// kDefault is the one spelling of the default table.
PolicyTable::PolicyTable() : PolicyTable(parse(kVariable, kDefault)) {}

PolicyTable PolicyTable::parse(std::string_view input, std::string_view text) {
  const auto fail = [&](std::size_t index, std::string_view entry, const std::string& why) {
    throw ConfigError(std::string(input), std::string(text),
                      fmt::format("entry {} '{}': {}; {}", index + 1, entry, why, kForm));
  };
  if (trim(text).empty()) {
    throw ConfigError(std::string(input), std::string(text), fmt::format("it is empty; {}", kForm));
  }
  const auto pieces = split(text, ',');
  if (pieces.size() > kMaxEntries) {
    throw ConfigError(
        std::string(input), std::string(text),
        fmt::format("{} entries, at most {} are allowed", pieces.size(), kMaxEntries));
  }
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::string_view entry = trim(pieces[i]);
    if (entry.empty()) {
      fail(i, pieces[i], "empty entry");
    }
    const auto colon = entry.find(':');
    if (colon == std::string_view::npos) {
      fail(i, entry, "missing ':' between size and policy");
    }
    const std::string_view size_text = trim(entry.substr(0, colon));
    const std::string_view policy_text = trim(entry.substr(colon + 1));
    if (size_text.empty()) {
      fail(i, entry, "missing max_size before ':'");
    }
    if (policy_text.empty()) {
      fail(i, entry, "missing policy after ':'");
    }
    const auto max_size = parse_max_size(size_text);
    if (!max_size) {
      fail(i, entry,
           fmt::format("max_size '{}' is not a byte count, ULONG_MAX or -1 (or it overflows 64 "
                       "bits)",
                       size_text));
    }
    const auto policy = parse_policy(policy_text);
    if (!policy) {
      fail(i, entry,
           fmt::format("unknown policy '{}' (expected fixed, round-robin or striping)",
                       policy_text));
    }
    if (!entries.empty() && *max_size <= entries.back().max_size) {
      fail(i, entry,
           fmt::format("max_size {} does not exceed the previous entry's {}: sizes must strictly "
                       "ascend",
                       size_text, entries.back().max_size));
    }
    entries.push_back(Entry{*max_size, *policy});
  }
  return PolicyTable(std::move(entries));
}

PolicyTable PolicyTable::from_environment() {
  const auto text = env::get(kVariable);
  return text ? parse(kVariable, *text) : PolicyTable();
}

Policy PolicyTable::policy_for(std::uint64_t size) const noexcept {
  // The last entry is the catch-all, whatever its max_size says.
  for (std::size_t i = 0; i + 1 < entries_.size(); ++i) {
    if (size <= entries_[i].max_size) {
      return entries_[i].policy;
    }
  }
  return entries_.back().policy;
}

std::string PolicyTable::describe() const {
  std::string out;
  std::uint64_t low = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const bool last = i + 1 == entries_.size();
    out += out.empty() ? "" : ", ";
    if (last) {
      out += fmt::format("{}+ {}", low, to_string(entries_[i].policy));
    } else {
      out += fmt::format("{}-{} {}", low, entries_[i].max_size, to_string(entries_[i].policy));
      low = entries_[i].max_size + 1;
    }
  }
  return out;
}

}  // namespace railyard::mrail
