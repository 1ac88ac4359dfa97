// Strict parsers for the values users type: environment variables, options and
// command-line flags. Each rejects anything it does not fully understand with a
// ConfigError naming the input, the value and the expected form.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

// Splits on `sep`, keeping empty pieces so callers can reject them.
[[nodiscard]] std::vector<std::string_view> split(std::string_view text, char sep);

// Removes leading and trailing spaces and tabs.
[[nodiscard]] std::string_view trim(std::string_view text);

// A byte count: decimal digits with an optional binary suffix k, m, g or t
// (case-insensitive, optionally followed by "b" or "ib": 64k = 64KiB = 65536).
// Returns nullopt on anything else, including overflow.
[[nodiscard]] std::optional<std::uint64_t> try_parse_size(std::string_view text);

// As try_parse_size, but throws ConfigError naming `input`.
[[nodiscard]] std::uint64_t parse_size(std::string_view input, std::string_view text);

// A plain unsigned decimal integer in [min, max]; throws ConfigError naming `input`.
[[nodiscard]] std::uint64_t parse_uint(std::string_view input, std::string_view text,
                                       std::uint64_t min, std::uint64_t max);

// A duration: decimal digits with an optional unit ms, s, m or h
// (case-insensitive); a bare number is `bare_unit`. Between min and max
// inclusive; throws ConfigError naming `input` otherwise.
[[nodiscard]] std::chrono::milliseconds parse_duration(std::string_view input,
                                                       std::string_view text,
                                                       std::chrono::milliseconds bare_unit,
                                                       std::chrono::milliseconds min,
                                                       std::chrono::milliseconds max);

// "1.5 s", "250 ms", "2 min" for messages.
[[nodiscard]] std::string describe_duration(std::chrono::milliseconds duration);

// "64 KiB", "1 MiB", "100 bytes" for messages and reports: the largest
// binary unit that divides the size.
[[nodiscard]] std::string describe_size(std::uint64_t bytes);

// "64k", "1m", "100": a size as try_parse_size reads it back, for the
// values users type (RAILYARD_ALGO's ranges).
[[nodiscard]] std::string size_argument(std::uint64_t bytes);

// Case-insensitive ASCII comparison.
[[nodiscard]] bool iequals(std::string_view a, std::string_view b) noexcept;

// "a, b or c" (conjunction "or") or "a, b and c" for error messages.
[[nodiscard]] std::string join_list(const std::vector<std::string>& items,
                                    std::string_view conjunction);

}  // namespace railyard
