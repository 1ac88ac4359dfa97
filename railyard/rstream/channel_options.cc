#include "railyard/rstream/channel_options.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::rstream {
namespace {

using Limits = ChannelLimits;

// Sizes are unsigned and durations signed; comparing in the value's own type
// shows a negative duration as given.
template <typename T>
void check_range(std::string_view field, T value, T min, T max, std::string_view unit) {
  if (value < min || value > max) {
    throw ConfigError(fmt::format("rstream option {}", field), fmt::format("{}", value),
                      fmt::format("expected {} to {}{}", min, max, unit));
  }
}

template <typename Duration>
void check_duration(std::string_view field, Duration value, long long min, long long max,
                    std::string_view unit) {
  check_range<long long>(field, value.count(), min, max, unit);
}

void check_provider(std::string_view input, const std::string& provider) {
  if (provider.empty() || trim(provider) != provider || provider.find(';') != std::string::npos) {
    throw ConfigError(std::string(input), provider,
                      "expected one libfabric core provider offering FI_EP_MSG endpoints, such "
                      "as tcp or verbs (no utility provider, no spaces)");
  }
}

}  // namespace

void ChannelOptions::validate() const {
  check_provider("rstream option provider", provider);
  check_range<std::size_t>("send_buffer_size", send_buffer_size, Limits::kMinBuffer,
                           Limits::kMaxBuffer, " bytes");
  check_range<std::size_t>("receive_buffer_size", receive_buffer_size, Limits::kMinBuffer,
                           Limits::kMaxBuffer, " bytes");
  check_range<std::size_t>("send_buffer_max", send_buffer_max, Limits::kMinBuffer,
                           Limits::kMaxBuffer, " bytes");
  check_range<std::size_t>("receive_buffer_max", receive_buffer_max, Limits::kMinBuffer,
                           Limits::kMaxBuffer, " bytes");
  check_range<std::size_t>("send_queue_size", send_queue_size, Limits::kMinQueue, Limits::kMaxQueue,
                           " entries");
  check_range<std::size_t>("receive_queue_size", receive_queue_size, Limits::kMinQueue,
                           Limits::kMaxQueue, " entries");
  check_range<std::size_t>("inline_size", inline_size, 0, Limits::kMaxInline, " bytes");
  check_duration("polling_time", polling_time, 0, Limits::kMaxPollingUs, " microseconds");
  check_duration("wake_up_interval", wake_up_interval, 1, Limits::kMaxMilliseconds,
                 " milliseconds");
  check_duration("keepalive", keepalive, 1, Limits::kMaxKeepaliveSeconds, " seconds");
  check_duration("connect_timeout", connect_timeout, 1, Limits::kMaxMilliseconds, " milliseconds");
  check_duration("shutdown_timeout", shutdown_timeout, 1, Limits::kMaxMilliseconds,
                 " milliseconds");
  check_range<std::size_t>("iomap_size", iomap_size, 0, Limits::kMaxIomap, " mappings");
}

ChannelOptions ChannelOptions::from_environment() {
  ChannelOptions options;
  if (const auto text = env::get("RAILYARD_RSTREAM_PROVIDER")) {
    check_provider("RAILYARD_RSTREAM_PROVIDER", *text);
    options.provider = *text;
  }
  const auto size = [](const char* name, std::size_t& field, std::uint64_t min, std::uint64_t max) {
    if (const auto text = env::get(name)) {
      const std::uint64_t value = parse_size(name, *text);
      if (value < min || value > max) {
        throw ConfigError(name, *text,
                          fmt::format("expected a byte count from {} to {}", min, max));
      }
      field = static_cast<std::size_t>(value);
    }
  };
  const auto count = [](const char* name, std::uint64_t min,
                        std::uint64_t max) -> std::optional<std::uint64_t> {
    if (const auto text = env::get(name)) {
      return parse_uint(name, *text, min, max);
    }
    return std::nullopt;
  };
  size("RAILYARD_RSTREAM_SEND_BUFFER", options.send_buffer_size, Limits::kMinBuffer,
       Limits::kMaxBuffer);
  size("RAILYARD_RSTREAM_RECEIVE_BUFFER", options.receive_buffer_size, Limits::kMinBuffer,
       Limits::kMaxBuffer);
  size("RAILYARD_RSTREAM_SEND_BUFFER_MAX", options.send_buffer_max, Limits::kMinBuffer,
       Limits::kMaxBuffer);
  size("RAILYARD_RSTREAM_RECEIVE_BUFFER_MAX", options.receive_buffer_max, Limits::kMinBuffer,
       Limits::kMaxBuffer);
  size("RAILYARD_RSTREAM_INLINE", options.inline_size, 0, Limits::kMaxInline);
  if (const auto v = count("RAILYARD_RSTREAM_SEND_QUEUE", Limits::kMinQueue, Limits::kMaxQueue)) {
    options.send_queue_size = *v;
  }
  if (const auto v =
          count("RAILYARD_RSTREAM_RECEIVE_QUEUE", Limits::kMinQueue, Limits::kMaxQueue)) {
    options.receive_queue_size = *v;
  }
  if (const auto v = count("RAILYARD_RSTREAM_POLLING_TIME_US", 0, Limits::kMaxPollingUs)) {
    options.polling_time = std::chrono::microseconds(*v);
  }
  if (const auto v = count("RAILYARD_RSTREAM_WAKE_UP_INTERVAL_MS", 1, Limits::kMaxMilliseconds)) {
    options.wake_up_interval = std::chrono::milliseconds(*v);
  }
  if (const auto v = count("RAILYARD_RSTREAM_KEEPALIVE", 1, Limits::kMaxKeepaliveSeconds)) {
    options.keepalive = std::chrono::seconds(*v);
  }
  if (const auto v = count("RAILYARD_RSTREAM_BACKGROUND_PROGRESS", 0, 1)) {
    options.background_progress = *v == 1;
  }
  if (const auto v = count("RAILYARD_RSTREAM_CONNECT_TIMEOUT_MS", 1, Limits::kMaxMilliseconds)) {
    options.connect_timeout = std::chrono::milliseconds(*v);
  }
  if (const auto v = count("RAILYARD_RSTREAM_SHUTDOWN_TIMEOUT_MS", 1, Limits::kMaxMilliseconds)) {
    options.shutdown_timeout = std::chrono::milliseconds(*v);
  }
  if (const auto v = count("RAILYARD_RSTREAM_IOMAP_SIZE", 0, Limits::kMaxIomap)) {
    options.iomap_size = *v;
  }
  return options;
}

}  // namespace railyard::rstream
