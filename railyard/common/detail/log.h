// railyard's one logger. Internal header: public headers must not include it.
//
// Everything goes to stderr (never stdout: that belongs to the application),
// one line per event, prefixed "<host>:<pid>:<tid> railyard <level>" so lines
// from many ranks can be told apart. The level comes from RAILYARD_LOG.
#pragma once

#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace railyard::log {

enum class Level { kTrace = 0, kDebug, kInfo, kWarn, kError, kOff };

// The level RAILYARD_LOG asks for; kWarn when unset.
[[nodiscard]] Level level() noexcept;
void set_level(Level lvl) noexcept;
[[nodiscard]] bool enabled(Level lvl) noexcept;

// Throws ConfigError when RAILYARD_LOG is set to something other than error,
// warn, info, debug, trace or off. Entry points (Rail, tools) call it so a typo
// is reported at once rather than silently ignored.
void check_environment();

void emit(Level lvl, std::string_view message);

template <typename... Args>
void write(Level lvl, fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(lvl)) {
    emit(lvl, fmt::format(format, std::forward<Args>(args)...));
  }
}
template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::kError, format, std::forward<Args>(args)...);
}
template <typename... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::kWarn, format, std::forward<Args>(args)...);
}
template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::kInfo, format, std::forward<Args>(args)...);
}
template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::kDebug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void trace(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::kTrace, format, std::forward<Args>(args)...);
}

}  // namespace railyard::log
