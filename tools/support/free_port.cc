#include "tools/support/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>

#include "railyard/common/detail/errno_text.h"
#include "railyard/common/detail/unique_fd.h"
#include "railyard/common/error.h"

namespace railyard::tools {

std::uint16_t free_tcp_port(const std::string& ipv4_host) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  if (::inet_pton(AF_INET, ipv4_host.c_str(), &address.sin_addr) != 1) {
    throw ConfigError("host", ipv4_host, "expected an IPv4 address");
  }
  const UniqueFd socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket) {
    throw Error("socket", errno, "socket(AF_INET) failed: " + errno_text(errno));
  }
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if (::bind(socket.get(), generic, sizeof(address)) != 0) {
    throw Error("bind", errno, fmt::format("bind({}:0) failed: {}", ipv4_host, errno_text(errno)));
  }
  socklen_t length = sizeof(address);
  if (::getsockname(socket.get(), generic, &length) != 0) {
    throw Error("getsockname", errno, fmt::format("getsockname failed: {}", errno_text(errno)));
  }
  return ntohs(address.sin_port);
}

}  // namespace railyard::tools
