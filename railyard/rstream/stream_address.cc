#include "railyard/rstream/stream_address.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::rstream {
namespace {

constexpr std::string_view kExpected =
    "expected [tcp:// or verbs://]host:port, with an IPv6 host in brackets and a port from 0 to "
    "65535 (for example tcp://127.0.0.1:7000 or [::1]:0)";

// Schemes name libfabric core providers offering FI_EP_MSG endpoints.
constexpr std::array<std::string_view, 2> kSchemes{"tcp", "verbs"};

bool valid_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

}  // namespace

std::string StreamAddress::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}{}{}{}{}:{}", provider, provider.empty() ? "" : "://", v6 ? "[" : "", host,
                     v6 ? "]" : "", port);
}

StreamAddress parse_stream_address(std::string_view input, std::string_view text) {
  const auto fail = [&](std::string_view why) {
    throw ConfigError(std::string(input), std::string(text), fmt::format("{}: {}", why, kExpected));
  };
  StreamAddress address;
  std::string_view rest = text;
  if (const auto scheme_end = rest.find("://"); scheme_end != std::string_view::npos) {
    const std::string_view scheme = rest.substr(0, scheme_end);
    bool known = false;
    for (const auto candidate : kSchemes) {
      known = known || scheme == candidate;
    }
    if (!known) {
      fail(fmt::format("unknown scheme '{}'", scheme));
    }
    address.provider = std::string(scheme);
    rest.remove_prefix(scheme_end + 3);
  }
  std::string_view host;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      fail("an IPv6 host needs ']' followed by ':port'");
    }
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
    // Every IPv6 address has a ':'; without one, the host printed back
    // (to_string() brackets only hosts with one) would not parse.
    for (const char c : host) {
      if (!(valid_host_char(c) || c == ':' || c == '%')) {
        fail(fmt::format("'{}' is not an IPv6 address", host));
      }
    }
    if (host.find(':') == std::string_view::npos) {
      fail(fmt::format("'{}' in brackets is not an IPv6 address", host));
    }
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) {
      fail("no port");
    }
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    for (const char c : host) {
      if (!valid_host_char(c)) {
        fail(fmt::format("'{}' is not a host name or IPv4 address", host));
      }
    }
  }
  if (host.empty()) {
    fail("no host");
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoul(std::string(port)) > 65535) {
    fail(fmt::format("'{}' is not a port", port));
  }
  address.host = std::string(host);
  address.port = static_cast<std::uint16_t>(std::stoul(std::string(port)));
  return address;
}

}  // namespace railyard::rstream
