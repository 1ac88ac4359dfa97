#include "railyard/mrail/options.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/fragment_limits.h"
#include "railyard/mrail/rail_addresses.h"
#include "railyard/mrail/rail_choice.h"
#include "railyard/rail/rail_options.h"

namespace railyard::mrail {
namespace {

// Shorter failover times would take a loaded rank's scheduling delays for
// a dead path.
constexpr std::chrono::milliseconds kMinFailoverTime{100};

}  // namespace

std::vector<double> parse_rail_weights(std::string_view input, std::string_view text) {
  std::vector<double> out;
  const auto pieces = split(text, ',');
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::string_view piece = trim(pieces[i]);
    double value = 0;
    const auto* end = piece.data() + piece.size();
    const auto [ptr, ec] = std::from_chars(piece.data(), end, value);
    if (piece.empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || value <= 0) {
      throw ConfigError(std::string(input), std::string(text),
                        fmt::format("entry {} '{}' is not a positive number; expected one "
                                    "positive weight per rail, comma separated (e.g. 1,1,2)",
                                    i + 1, pieces[i]));
    }
    out.push_back(value);
  }
  return out;
}

Options Options::from_environment() { return from_environment(rails_from_environment()); }

Options Options::from_environment(RailChoice rails) {
  Options options;
  options.rails = std::move(rails.rails);
  options.home_rail = rails.home_rail;
  options.home_rail_reason = std::move(rails.home_reason);
  options.policies = PolicyTable::from_environment();
  if (const auto text = env::get("RAILYARD_RAIL_WEIGHTS")) {
    options.rail_weights = parse_rail_weights("RAILYARD_RAIL_WEIGHTS", *text);
  }
  if (const auto text = env::get("RAILYARD_MIN_CHUNK")) {
    options.min_chunk = parse_size("RAILYARD_MIN_CHUNK", *text);
    if (options.min_chunk == 0) {
      throw ConfigError("RAILYARD_MIN_CHUNK", *text, "expected a size of at least 1 byte");
    }
  }
  if (const auto text = env::get("RAILYARD_EAGER_LIMIT")) {
    options.eager_limit = parse_size("RAILYARD_EAGER_LIMIT", *text);
    constexpr std::uint64_t kMaxEager = std::uint64_t{64} << 20;
    if (options.eager_limit > kMaxEager) {
      throw ConfigError("RAILYARD_EAGER_LIMIT", *text,
                        fmt::format("expected a size up to {} (64m)", kMaxEager));
    }
  }
  if (const auto text = env::get("RAILYARD_PULL_CHUNK")) {
    options.pull_chunk = parse_size("RAILYARD_PULL_CHUNK", *text);
    constexpr std::uint64_t kMinPullChunk = std::uint64_t{4} * 1024;
    if (options.pull_chunk != 0 && options.pull_chunk < kMinPullChunk) {
      throw ConfigError("RAILYARD_PULL_CHUNK", *text,
                        "expected 0 (one read per path) or a size of at least 4k");
    }
  }
  if (const auto text = env::get("RAILYARD_PULL_DEPTH")) {
    constexpr std::uint64_t kMaxPullDepth = 64;
    options.pull_depth =
        static_cast<std::uint32_t>(parse_uint("RAILYARD_PULL_DEPTH", *text, 1, kMaxPullDepth));
  }
  if (const auto text = env::get("RAILYARD_FRAGMENT_SIZE")) {
    const std::uint64_t size = parse_size("RAILYARD_FRAGMENT_SIZE", *text);
    if (size < detail::kMinFragmentSize || size > detail::kMaxFragmentSize) {
      throw ConfigError("RAILYARD_FRAGMENT_SIZE", *text, "expected a size from 1k to 16m");
    }
    options.fragment_size = static_cast<std::uint32_t>(size);
  }
  if (const auto text = env::get("RAILYARD_MR_CACHE")) {
    if (iequals(*text, "auto")) {
      options.registration_cache = RegistrationCacheMode::kAuto;
    } else if (iequals(*text, "on")) {
      options.registration_cache = RegistrationCacheMode::kOn;
    } else if (iequals(*text, "off")) {
      options.registration_cache = RegistrationCacheMode::kOff;
    } else {
      throw ConfigError("RAILYARD_MR_CACHE", *text, "expected auto, on or off");
    }
  }
  if (const auto text = env::get("RAILYARD_UNEXPECTED_PEER_BYTES")) {
    options.unexpected_peer_bytes = parse_size("RAILYARD_UNEXPECTED_PEER_BYTES", *text);
  }
  if (const auto text = env::get("RAILYARD_UNEXPECTED_BYTES")) {
    options.unexpected_bytes = parse_size("RAILYARD_UNEXPECTED_BYTES", *text);
  }
  if (const auto text = env::get("RAILYARD_BACKGROUND_PROGRESS")) {
    options.background_progress = parse_uint("RAILYARD_BACKGROUND_PROGRESS", *text, 0, 1) == 1;
  }
  if (const auto text = env::get("RAILYARD_RAIL_TIMEOUT")) {
    // One message for both ways to get it wrong: a bad duration, or one
    // below the smallest that failover can time.
    const std::string expected =
        "expected 0 (failover off) or a duration from 100 ms to 1 h: digits with an optional "
        "unit ms, s, m or h (a bare number is seconds)";
    try {
      options.rail_timeout = parse_duration("RAILYARD_RAIL_TIMEOUT", *text, std::chrono::seconds(1),
                                            std::chrono::milliseconds(0), std::chrono::hours(1));
    } catch (const ConfigError&) {
      throw ConfigError("RAILYARD_RAIL_TIMEOUT", *text, expected);
    }
    if (options.rail_timeout.count() != 0 && options.rail_timeout < kMinFailoverTime) {
      throw ConfigError("RAILYARD_RAIL_TIMEOUT", *text, expected);
    }
  }
  if (const auto text = env::get("RAILYARD_RAIL_RETRY")) {
    options.rail_retry = parse_duration("RAILYARD_RAIL_RETRY", *text, std::chrono::seconds(1),
                                        kMinFailoverTime, std::chrono::hours(1));
  }
  options.post_timeout = rail::post_timeout_from_environment();
  options.wait = rail::WaitPolicy::from_environment();
  return options;
}

}  // namespace railyard::mrail
