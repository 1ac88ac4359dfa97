#include "railyard/fabric/detail/ofi_mrail_guard.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/error.h"

namespace railyard::fabric::detail {
namespace {

// An interface of this host by that exact name with an IPv4 address, as
// ofi_mrail looks one up first.
bool ipv4_interface(const std::string& name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    return false;
  }
  const std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> owned(list, &::freeifaddrs);
  for (const ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr != nullptr && it->ifa_addr->sa_family == AF_INET && name == it->ifa_name) {
      return true;
    }
  }
  return false;
}

// A host name or numeric address getaddrinfo resolves, as ofi_mrail tries
// next.
bool resolvable(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) {
    return false;
  }
  ::freeaddrinfo(found);
  return true;
}

// "fi_sockaddr_in://a.b.c.d[:port]" or "fi_sockaddr_in6://[addr][:port]".
bool socket_address_string(const std::string& entry) {
  for (const auto& [prefix, family] :
       {std::pair<std::string_view, int>{"fi_sockaddr_in://", AF_INET},
        std::pair<std::string_view, int>{"fi_sockaddr_in6://", AF_INET6}}) {
    if (!entry.starts_with(prefix)) {
      continue;
    }
    std::string host = entry.substr(prefix.size());
    if (family == AF_INET6) {
      const std::size_t close = host.find(']');
      if (!host.starts_with('[') || close == std::string::npos) {
        return false;
      }
      host = host.substr(1, close - 1);
    } else if (const std::size_t colon = host.find(':'); colon != std::string::npos) {
      host.resize(colon);
    }
    std::array<unsigned char, sizeof(in6_addr)> address{};
    return ::inet_pton(family, host.c_str(), address.data()) == 1;
  }
  return false;
}

bool converts(const std::string& entry) {
  if (entry.empty()) {
    return false;
  }
  if (entry.find("://") != std::string::npos) {
    return socket_address_string(entry);
  }
  return ipv4_interface(entry) || resolvable(entry);
}

}  // namespace

void check_ofi_mrail_addresses() {
  const char* variable = "FI_OFI_MRAIL_ADDR";
  std::optional<std::string> text = env::get(variable);
  if (!text) {
    variable = "FI_OFI_MRAIL_ADDR_STRC";
    text = env::get(variable);
  }
  if (!text || text->find(',') == std::string::npos) {
    return;  // ofi_mrail then offers nothing, or fails on its one entry
  }
  // Each value checked once: getaddrinfo may ask a name server.
  static std::mutex mutex;
  static std::string checked;
  const std::scoped_lock lock(mutex);
  if (*text == checked) {
    return;
  }
  std::size_t start = 0;
  while (start <= text->size()) {
    const std::size_t end = std::min(text->find(',', start), text->size());
    const std::string entry = text->substr(start, end - start);
    if (!converts(entry)) {
      throw ConfigError(
          variable, *text,
          fmt::format("libfabric's ofi_mrail provider takes every entry as an interface with an "
                      "IPv4 address, a host name or address without a port, or an "
                      "fi_sockaddr_in:// address, and entry '{}' is none of these (given a "
                      "list whose later entries fail, libfabric 1.17 aborts)",
                      entry));
    }
    start = end + 1;
  }
  checked = *text;
}

}  // namespace railyard::fabric::detail
