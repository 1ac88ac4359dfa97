// The network interfaces of this host and their addresses (getifaddrs).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <vector>

namespace railyard {

struct InterfaceAddress {
  std::string interface;   // "eth0"
  std::string address;     // numeric, "192.0.2.2" or "fe80::1%eth0"
  int family = AF_UNSPEC;  // AF_INET or AF_INET6
  unsigned prefix_length = 0;
  bool up = false;
  bool loopback = false;
  sockaddr_storage sockaddr{};
};

// Every IPv4 and IPv6 address of every interface, in the kernel's order.
[[nodiscard]] std::vector<InterfaceAddress> list_interface_addresses();

// "lo (127.0.0.1), eth0 (192.0.2.2, fd00::2)" for error messages.
[[nodiscard]] std::string describe_interfaces(const std::vector<InterfaceAddress>& addresses);

// The numeric text of an IPv4/IPv6 socket address (with %scope for link-local).
[[nodiscard]] std::string numeric_host(const sockaddr* address);

}  // namespace railyard
