// Payloads whose every byte depends on its position and a per-message seed,
// so a lost, truncated, shifted or swapped message is caught by content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace railyard::testing {

inline std::byte pattern_byte(std::uint64_t seed, std::size_t index) {
  const std::uint64_t x = (index + 1) * 0x9E3779B97F4A7C15ULL ^ (seed * 0xBF58476D1CE4E5B9ULL);
  return static_cast<std::byte>((x >> 32) ^ (x >> 56) ^ index);
}

inline void fill_pattern(std::span<std::byte> buffer, std::uint64_t seed) {
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    buffer[i] = pattern_byte(seed, i);
  }
}

// The index of the first byte that differs from the pattern, or nullopt.
inline std::optional<std::size_t> first_mismatch(std::span<const std::byte> buffer,
                                                 std::uint64_t seed) {
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (buffer[i] != pattern_byte(seed, i)) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace railyard::testing
