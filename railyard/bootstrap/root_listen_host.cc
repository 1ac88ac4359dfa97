#include "railyard/bootstrap/root_listen_host.h"

#include <fmt/format.h>

#include <algorithm>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/network_interfaces.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap {

std::string root_listen_host(std::string_view preferred) {
  const auto addresses = list_interface_addresses();
  if (const auto wanted = env::get(kRootHostVariable)) {
    for (const InterfaceAddress& address : addresses) {
      if (address.interface == *wanted && address.family == AF_INET) {
        return address.address;
      }
    }
    if (wanted->empty() || std::ranges::any_of(*wanted, [](char c) { return c == ' '; })) {
      throw ConfigError(kRootHostVariable, *wanted,
                        fmt::format("expected an interface with an IPv4 address ({}) or an "
                                    "address of this host",
                                    describe_interfaces(addresses)));
    }
    return *wanted;
  }
  if (!preferred.empty() && std::ranges::any_of(addresses, [&](const InterfaceAddress& address) {
        return address.family == AF_INET && address.address == preferred;
      })) {
    return std::string(preferred);
  }
  for (const InterfaceAddress& address : addresses) {
    if (address.up && !address.loopback && address.family == AF_INET) {
      return address.address;
    }
  }
  return "127.0.0.1";
}

}  // namespace railyard::bootstrap
