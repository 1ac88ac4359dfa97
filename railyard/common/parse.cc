#include "railyard/common/detail/parse.h"

#include <array>
#include <charconv>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::optional<std::uint64_t> parse_digits(std::string_view digits) {
  if (digits.empty()) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value, 10);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

std::optional<std::uint64_t> try_parse_size(std::string_view text) {
  std::size_t digits_end = 0;
  while (digits_end < text.size() && text[digits_end] >= '0' && text[digits_end] <= '9') {
    ++digits_end;
  }
  const auto value = parse_digits(text.substr(0, digits_end));
  if (!value) {
    return std::nullopt;
  }
  std::string_view suffix = text.substr(digits_end);
  if (suffix.empty()) {
    return value;
  }
  // k, m, g, t, each optionally followed by "b" or "ib".
  static constexpr std::array<std::pair<char, unsigned>, 4> kUnits{
      {{'k', 10}, {'m', 20}, {'g', 30}, {'t', 40}}};
  const char unit = lower(suffix.front());
  unsigned shift = 0;
  for (const auto& [letter, bits] : kUnits) {
    if (unit == letter) {
      shift = bits;
    }
  }
  const std::string_view rest = suffix.substr(1);
  if (shift == 0 || !(rest.empty() || iequals(rest, "b") || iequals(rest, "ib"))) {
    return std::nullopt;
  }
  if (*value > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
    return std::nullopt;
  }
  return *value << shift;
}

std::uint64_t parse_size(std::string_view input, std::string_view text) {
  const auto value = try_parse_size(text);
  if (!value) {
    throw ConfigError(std::string(input), std::string(text),
                      "expected a byte count such as 4096, 64k, 1m or 2g (binary units, "
                      "at most 2^64-1)");
  }
  return *value;
}

std::uint64_t parse_uint(std::string_view input, std::string_view text, std::uint64_t min,
                         std::uint64_t max) {
  const auto value = parse_digits(text);
  if (!value || *value < min || *value > max) {
    throw ConfigError(std::string(input), std::string(text),
                      fmt::format("expected an integer from {} to {}", min, max));
  }
  return *value;
}

std::chrono::milliseconds parse_duration(std::string_view input, std::string_view text,
                                         std::chrono::milliseconds bare_unit,
                                         std::chrono::milliseconds min,
                                         std::chrono::milliseconds max) {
  const auto invalid = [&] {
    return ConfigError(
        std::string(input), std::string(text),
        fmt::format("expected a duration from {} to {}: digits with an optional "
                    "unit ms, s, m or h (a bare number is {})",
                    describe_duration(min), describe_duration(max),
                    bare_unit == std::chrono::seconds(1) ? "seconds" : "milliseconds"));
  };
  std::size_t digits_end = 0;
  while (digits_end < text.size() && text[digits_end] >= '0' && text[digits_end] <= '9') {
    ++digits_end;
  }
  const auto count = parse_digits(text.substr(0, digits_end));
  if (!count) {
    throw invalid();
  }
  const std::string_view unit = text.substr(digits_end);
  auto unit_ms = static_cast<std::uint64_t>(bare_unit.count());
  if (iequals(unit, "ms")) {
    unit_ms = 1;
  } else if (iequals(unit, "s")) {
    unit_ms = 1000;
  } else if (iequals(unit, "m")) {
    unit_ms = 60'000;
  } else if (iequals(unit, "h")) {
    unit_ms = 3'600'000;
  } else if (!unit.empty()) {
    throw invalid();
  }
  const auto limit = static_cast<std::uint64_t>(max.count());
  if (*count > limit / unit_ms) {
    throw invalid();
  }
  const std::chrono::milliseconds value(static_cast<std::int64_t>(*count * unit_ms));
  if (value < min || value > max) {
    throw invalid();
  }
  return value;
}

namespace {

// The largest binary unit that divides `bytes` (0 divides by none), as
// its power of two and its index into the names below.
struct BinaryUnit {
  int shift = 0;
  int index = -1;
};

BinaryUnit binary_unit_of(std::uint64_t bytes) {
  constexpr std::array kShifts{30, 20, 10};
  for (int index = 0; index < static_cast<int>(kShifts.size()); ++index) {
    const int shift = kShifts[static_cast<std::size_t>(index)];
    const std::uint64_t unit = std::uint64_t{1} << shift;
    if (bytes >= unit && bytes % unit == 0) {
      return {shift, index};
    }
  }
  return {};
}

}  // namespace

std::string describe_size(std::uint64_t bytes) {
  constexpr std::array kNames{"GiB", "MiB", "KiB"};
  const BinaryUnit unit = binary_unit_of(bytes);
  return unit.index < 0 ? fmt::format("{} bytes", bytes)
                        : fmt::format("{} {}", bytes >> unit.shift,
                                      kNames[static_cast<std::size_t>(unit.index)]);
}

std::string size_argument(std::uint64_t bytes) {
  constexpr std::array kSuffixes{"g", "m", "k"};
  const BinaryUnit unit = binary_unit_of(bytes);
  return unit.index < 0 ? std::to_string(bytes)
                        : fmt::format("{}{}", bytes >> unit.shift,
                                      kSuffixes[static_cast<std::size_t>(unit.index)]);
}

std::string describe_duration(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  if (ms % 3'600'000 == 0 && ms != 0) {
    return fmt::format("{} h", ms / 3'600'000);
  }
  if (ms % 60'000 == 0 && ms != 0) {
    return fmt::format("{} min", ms / 60'000);
  }
  if (ms >= 1000) {
    return fmt::format("{:g} s", static_cast<double>(ms) / 1000.0);
  }
  return fmt::format("{} ms", ms);
}

std::string join_list(const std::vector<std::string>& items, std::string_view conjunction) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      if (i + 1 == items.size()) {
        out += ' ';
        out += conjunction;
        out += ' ';
      } else {
        out += ", ";
      }
    }
    out += items[i];
  }
  return out;
}

}  // namespace railyard
