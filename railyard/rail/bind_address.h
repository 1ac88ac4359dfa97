// Turning what a user writes for a rail's address into an address of this host.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace railyard::rail {

struct BindAddress {
  std::string spec;        // what the user wrote
  std::string host;        // numeric address for fi_getinfo's node ("fe80::1%eth0" keeps its scope)
  std::uint16_t port = 0;  // 0 lets the provider choose
  int family = 0;          // AF_INET or AF_INET6
  std::string interface;   // the local interface that holds the address
  // The IP network the address lies in, "198.18.1.0/24": rails on the same
  // network can reach each other.
  std::string network;
};

// Accepts, in this order of interpretation:
//   FI_ADDR_STR     fi_sockaddr_in://192.0.2.1:7000, fi_sockaddr_in6://[fd00::1]:0
//   IPv6 address    fd00::1, [fd00::1]:7000, fe80::1%eth0
//   IPv4 address    192.0.2.1, 192.0.2.1:7000
//   interface name  eth0 (its first IPv4 address, else its first IPv6 address)
//   host name       node1, node1:7000 (must resolve to an address of this host)
// The address must belong to an interface of this host that is up; loopback
// interfaces also own their whole prefix (127.0.0.2 is local). Throws
// ConfigError naming `input`, the value and what was expected; the message
// lists the interfaces that do exist.
[[nodiscard]] BindAddress resolve_bind_address(std::string_view input, std::string_view spec);

}  // namespace railyard::rail
