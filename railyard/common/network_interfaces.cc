#include "railyard/common/detail/network_interfaces.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>
#include <utility>

#include "railyard/common/error.h"

namespace railyard {
namespace {

unsigned prefix_of(const sockaddr* netmask) {
  if (netmask == nullptr) {
    return 0;
  }
  unsigned bits = 0;
  if (netmask->sa_family == AF_INET) {
    sockaddr_in mask{};
    std::memcpy(&mask, netmask, sizeof(mask));
    bits = static_cast<unsigned>(std::popcount(mask.sin_addr.s_addr));
  } else if (netmask->sa_family == AF_INET6) {
    sockaddr_in6 mask{};
    std::memcpy(&mask, netmask, sizeof(mask));
    for (const auto byte : mask.sin6_addr.s6_addr) {
      bits += static_cast<unsigned>(std::popcount(byte));
    }
  }
  return bits;
}

}  // namespace

std::string numeric_host(const sockaddr* address) {
  std::array<char, NI_MAXHOST> host{};
  const socklen_t len = address->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (getnameinfo(address, len, host.data(), host.size(), nullptr, 0, NI_NUMERICHOST) != 0) {
    return "<unprintable>";
  }
  return host.data();
}

std::vector<InterfaceAddress> list_interface_addresses() {
  ifaddrs* raw = nullptr;
  if (getifaddrs(&raw) != 0) {
    const int err = errno;
    throw Error("getifaddrs", -err, "getifaddrs failed: " + std::system_category().message(err));
  }
  const std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> list(raw, &freeifaddrs);
  std::vector<InterfaceAddress> out;
  for (const ifaddrs* it = list.get(); it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr ||
        (it->ifa_addr->sa_family != AF_INET && it->ifa_addr->sa_family != AF_INET6)) {
      continue;
    }
    InterfaceAddress entry;
    entry.interface = it->ifa_name;
    entry.family = it->ifa_addr->sa_family;
    entry.address = numeric_host(it->ifa_addr);
    entry.prefix_length = prefix_of(it->ifa_netmask);
    entry.up = (it->ifa_flags & IFF_UP) != 0 && (it->ifa_flags & IFF_RUNNING) != 0;
    entry.loopback = (it->ifa_flags & IFF_LOOPBACK) != 0;
    std::memcpy(&entry.sockaddr, it->ifa_addr,
                entry.family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    out.push_back(std::move(entry));
  }
  return out;
}

std::string describe_interfaces(const std::vector<InterfaceAddress>& addresses) {
  // Group by interface in first-seen order: the kernel lists every IPv4
  // address before the first IPv6 one.
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& entry : addresses) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == entry.interface; });
    if (it == groups.end()) {
      groups.emplace_back(entry.interface, entry.address);
    } else {
      it->second += ", " + entry.address;
    }
  }
  std::string out;
  for (const auto& [name, list] : groups) {
    out += out.empty() ? "" : ", ";
    out += name;
    out += " (";
    out += list;
    out += ")";
  }
  return out.empty() ? "none" : out;
}

}  // namespace railyard
