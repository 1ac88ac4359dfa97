#include "railyard/rail/bind_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/network_interfaces.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::rail {
namespace {

constexpr std::string_view kExpected =
    "an interface name, an IPv4 or IPv6 address (optionally with :port), a host name of this "
    "machine, or an FI_ADDR_STR such as fi_sockaddr_in://192.0.2.1:0";

struct HostPort {
  std::string host;
  std::optional<std::string_view> port;
};

// Splits "host:port", "[v6]:port", "[v6]" and bare hosts. An unbracketed text
// with several colons is a bare IPv6 address.
std::optional<HostPort> split_host_port(std::string_view text) {
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      return std::nullopt;
    }
    HostPort out{std::string(text.substr(1, close - 1)), std::nullopt};
    const auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) {
        return std::nullopt;
      }
      out.port = rest.substr(1);
    }
    return out;
  }
  const auto colons = std::count(text.begin(), text.end(), ':');
  if (colons == 1) {
    const auto colon = text.find(':');
    return HostPort{std::string(text.substr(0, colon)), text.substr(colon + 1)};
  }
  return HostPort{std::string(text), std::nullopt};
}

// A numeric address, or nullopt when `host` is not one.
std::optional<sockaddr_storage> parse_numeric(const std::string& host) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST;
  hints.ai_family = AF_UNSPEC;
  addrinfo* result = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &result) != 0) {
    return std::nullopt;
  }
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(result, &freeaddrinfo);
  sockaddr_storage out{};
  std::memcpy(&out, result->ai_addr, result->ai_addrlen);
  return out;
}

bool same_prefix(const sockaddr_storage& a, const sockaddr_storage& b, unsigned prefix) {
  if (a.ss_family != b.ss_family) {
    return false;
  }
  const unsigned char* pa = nullptr;
  const unsigned char* pb = nullptr;
  unsigned total_bits = 0;
  if (a.ss_family == AF_INET) {
    pa =
        reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(&a)->sin_addr);
    pb =
        reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(&b)->sin_addr);
    total_bits = 32;
  } else {
    pa = reinterpret_cast<const sockaddr_in6*>(&a)->sin6_addr.s6_addr;
    pb = reinterpret_cast<const sockaddr_in6*>(&b)->sin6_addr.s6_addr;
    total_bits = 128;
  }
  prefix = std::min(prefix, total_bits);
  for (unsigned bit = 0; bit < prefix; ++bit) {
    const unsigned mask = 0x80U >> (bit % 8);
    if ((pa[bit / 8] & mask) != (pb[bit / 8] & mask)) {
      return false;
    }
  }
  return true;
}

// The interface entry that owns `address`: an exact match, or a loopback
// interface whose prefix contains it.
const InterfaceAddress* find_owner(const std::vector<InterfaceAddress>& interfaces,
                                   const sockaddr_storage& address) {
  const std::string text = numeric_host(reinterpret_cast<const sockaddr*>(&address));
  for (const auto& entry : interfaces) {
    if (entry.address == text) {
      return &entry;
    }
  }
  for (const auto& entry : interfaces) {
    if (entry.loopback && same_prefix(entry.sockaddr, address, entry.prefix_length)) {
      return &entry;
    }
  }
  return nullptr;
}

// "198.18.1.0/24": the address with its host bits cleared.
std::string network_of(const sockaddr_storage& address, unsigned prefix) {
  sockaddr_storage masked = address;
  unsigned char* bytes = nullptr;
  unsigned total_bits = 0;
  if (masked.ss_family == AF_INET) {
    bytes = reinterpret_cast<unsigned char*>(&reinterpret_cast<sockaddr_in*>(&masked)->sin_addr);
    total_bits = 32;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&masked);
    bytes = v6->sin6_addr.s6_addr;
    v6->sin6_scope_id = 0;
    total_bits = 128;
  }
  prefix = std::min(prefix, total_bits);
  for (unsigned bit = prefix; bit < total_bits; ++bit) {
    bytes[bit / 8] &= static_cast<unsigned char>(~(0x80U >> (bit % 8)));
  }
  return fmt::format("{}/{}", numeric_host(reinterpret_cast<const sockaddr*>(&masked)), prefix);
}

// Whether an interface of that name exists, with or without an address:
// nullopt when none does, else whether it is up.
std::optional<bool> interface_up(const std::string& name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    return std::nullopt;
  }
  const std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> owned(list, &::freeifaddrs);
  for (const ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (name == it->ifa_name) {
      return (it->ifa_flags & IFF_UP) != 0;
    }
  }
  return std::nullopt;
}

std::uint16_t parse_port(std::string_view input, std::string_view spec,
                         std::optional<std::string_view> port) {
  if (!port) {
    return 0;
  }
  try {
    return static_cast<std::uint16_t>(parse_uint(input, *port, 0, 65535));
  } catch (const ConfigError&) {
    throw ConfigError(std::string(input), std::string(spec),
                      fmt::format("port '{}' is not an integer from 0 to 65535", *port));
  }
}

BindAddress finish(std::string_view input, std::string_view spec, const sockaddr_storage& address,
                   std::uint16_t port, const std::vector<InterfaceAddress>& interfaces) {
  const InterfaceAddress* owner = find_owner(interfaces, address);
  const std::string text = numeric_host(reinterpret_cast<const sockaddr*>(&address));
  if (owner == nullptr) {
    throw ConfigError(std::string(input), std::string(spec),
                      fmt::format("{} is not an address of this host (its interfaces: {})", text,
                                  describe_interfaces(interfaces)));
  }
  if (!owner->up) {
    throw ConfigError(std::string(input), std::string(spec),
                      fmt::format("interface {} holding {} is down", owner->interface, text));
  }
  return BindAddress{std::string(spec),
                     text,
                     port,
                     address.ss_family,
                     owner->interface,
                     network_of(address, owner->prefix_length)};
}

}  // namespace

BindAddress resolve_bind_address(std::string_view input, std::string_view spec) {
  const auto interfaces = list_interface_addresses();
  if (trim(spec).empty()) {
    throw ConfigError(std::string(input), std::string(spec), fmt::format("expected {}", kExpected));
  }
  if (trim(spec) != spec) {
    throw ConfigError(
        std::string(input), std::string(spec),
        fmt::format("leading or trailing spaces are not allowed; expected {}", kExpected));
  }

  // FI_ADDR_STR: only the socket-address formats name an IP endpoint.
  if (const auto scheme = spec.find("://"); scheme != std::string_view::npos) {
    const auto format = spec.substr(0, scheme);
    if (format != "fi_sockaddr_in" && format != "fi_sockaddr_in6") {
      throw ConfigError(std::string(input), std::string(spec),
                        fmt::format("FI_ADDR_STR format '{}' is not supported (expected "
                                    "fi_sockaddr_in:// or fi_sockaddr_in6://)",
                                    format));
    }
    const auto parts = split_host_port(spec.substr(scheme + 3));
    const auto address = parts ? parse_numeric(parts->host) : std::nullopt;
    const int family = format == "fi_sockaddr_in" ? AF_INET : AF_INET6;
    if (!address || address->ss_family != family) {
      throw ConfigError(std::string(input), std::string(spec),
                        fmt::format("expected {}://<{} address>[:port]", format,
                                    family == AF_INET ? "IPv4" : "IPv6"));
    }
    return finish(input, spec, *address, parse_port(input, spec, parts->port), interfaces);
  }

  const auto parts = split_host_port(spec);
  if (!parts || parts->host.empty()) {
    throw ConfigError(std::string(input), std::string(spec), fmt::format("expected {}", kExpected));
  }
  if (const auto address = parse_numeric(parts->host)) {
    return finish(input, spec, *address, parse_port(input, spec, parts->port), interfaces);
  }

  // An interface name (never with a port: "eth0:1" is an alias, not a port).
  if (!parts->port) {
    const InterfaceAddress* chosen = nullptr;
    for (const auto& entry : interfaces) {
      if (entry.interface == parts->host &&
          (chosen == nullptr || (chosen->family != AF_INET && entry.family == AF_INET))) {
        chosen = &entry;
      }
    }
    if (chosen != nullptr) {
      return finish(input, spec, chosen->sockaddr, 0, interfaces);
    }
    if (const auto up = interface_up(parts->host)) {
      throw ConfigError(
          std::string(input), std::string(spec),
          fmt::format("interface {} has no IP address to bind a rail to{}; "
                      "interfaces with one: {}",
                      parts->host, *up ? "" : " (it is down)", describe_interfaces(interfaces)));
    }
  }

  // A host name: the first of its addresses that belongs to this host.
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(parts->host.c_str(), nullptr, &hints, &result);
  if (rc != 0) {
    throw ConfigError(
        std::string(input), std::string(spec),
        fmt::format("'{}' is not an interface of this host, an IP address or a "
                    "resolvable host name ({}); expected {}; interfaces: {}",
                    parts->host, gai_strerror(rc), kExpected, describe_interfaces(interfaces)));
  }
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(result, &freeaddrinfo);
  const std::uint16_t port = parse_port(input, spec, parts->port);
  for (const addrinfo* it = result; it != nullptr; it = it->ai_next) {
    sockaddr_storage address{};
    std::memcpy(&address, it->ai_addr, it->ai_addrlen);
    if (find_owner(interfaces, address) != nullptr) {
      return finish(input, spec, address, port, interfaces);
    }
  }
  sockaddr_storage first{};
  std::memcpy(&first, result->ai_addr, result->ai_addrlen);
  return finish(input, spec, first, port, interfaces);  // throws: not local
}

}  // namespace railyard::rail
