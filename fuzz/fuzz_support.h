// What every harness shares: the input as bytes or text, and checks that
// end the run with a report (libFuzzer saves the input that failed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "railyard/common/error.h"

namespace railyard::fuzz {

inline std::span<const std::byte> bytes_of(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const std::byte*>(data), size};
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(data), size};
}

// A property of the code under test failed: report it and abort, which
// libFuzzer counts as a crash.
[[noreturn]] inline void fail(std::string_view what) {
  std::fprintf(stderr, "fuzz property failed: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void require(bool holds, std::string_view what) {
  if (!holds) {
    fail(what);
  }
}

// A refusal of user input must be a ConfigError that names the input and
// carries the value given (or the entry of it at fault) and what was
// expected.
inline void require_names(const ConfigError& error, std::string_view input, std::string_view text) {
  require(error.input() == input, "the ConfigError names another input");
  require(text.find(error.value()) != std::string_view::npos,
          "the ConfigError carries a value that is not part of the input");
  require(!error.expected().empty(), "the ConfigError says nothing about what was expected");
  require(std::string_view(error.what()).find(input) != std::string_view::npos,
          "the message does not name the input");
}

// Runs parse(input, text), which checks what it accepted; a refusal must
// be a ConfigError as require_names() wants it.
template <typename Parse>
void refused_well(std::string_view input, std::string_view text, Parse parse) {
  try {
    parse(input, text);
  } catch (const ConfigError& error) {
    require_names(error, input, text);
  }
}

}  // namespace railyard::fuzz
