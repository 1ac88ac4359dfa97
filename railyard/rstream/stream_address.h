// Where a listener binds or a channel connects: "host:port", optionally
// prefixed with the provider as a scheme ("tcp://host:port",
// "verbs://host:port"). IPv6 hosts go in brackets ("[fe80::1]:7000").
// Port 0 asks a listener to pick a free port.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace railyard::rstream {

struct StreamAddress {
  std::string provider;  // from the scheme; empty when none was given
  std::string host;      // without brackets
  std::uint16_t port = 0;

  // "tcp://127.0.0.1:7000" (the scheme only when provider is set).
  [[nodiscard]] std::string to_string() const;
};

// Parses `text`; throws ConfigError naming `input` (e.g. "rstream address")
// and saying what was expected.
[[nodiscard]] StreamAddress parse_stream_address(std::string_view input, std::string_view text);

}  // namespace railyard::rstream
