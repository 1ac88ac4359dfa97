// The baseline: a TCP socket with Nagle off, blocking reads and writes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "byte_stream.h"
#include "railyard/common/detail/errno_text.h"
#include "railyard/common/detail/unique_fd.h"

namespace railyard::bench {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(fmt::format("tcp: {}: {}", what, errno_text(errno)));
}

sockaddr_in resolve(const std::string& host, std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) {
    throw std::runtime_error(fmt::format("tcp: '{}' is not an IPv4 address", host));
  }
  return address;
}

class TcpStream final : public ByteStream {
 public:
  explicit TcpStream(UniqueFd fd) : fd_(std::move(fd)) {
    const int one = 1;
    if (setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
      fail("setsockopt TCP_NODELAY");
    }
  }
  void send_all(std::span<const std::byte> data) override {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) {
          continue;
        }
        fail("send");
      }
      data = data.subspan(static_cast<std::size_t>(n));
    }
  }
  void receive_all(std::span<std::byte> out) override {
    while (!out.empty()) {
      const ssize_t n = ::recv(fd_.get(), out.data(), out.size(), 0);
      if (n == 0) {
        throw std::runtime_error("tcp: the peer closed the connection");
      }
      if (n < 0) {
        if (errno == EINTR) {
          continue;
        }
        fail("recv");
      }
      out = out.subspan(static_cast<std::size_t>(n));
    }
  }

 private:
  UniqueFd fd_;
};

class TcpListener final : public StreamListener {
 public:
  explicit TcpListener(const std::string& host)
      : fd_(::socket(AF_INET, SOCK_STREAM, 0)), host_(host) {
    if (!fd_) {
      fail("socket");
    }
    sockaddr_in address = resolve(host, 0);
    if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(fd_.get(), 4) != 0) {
      fail("bind/listen on " + host);
    }
    socklen_t length = sizeof(address);
    if (::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      fail("getsockname");
    }
    port_ = ntohs(address.sin_port);
  }
  [[nodiscard]] std::string address() const override { return fmt::format("{}:{}", host_, port_); }
  [[nodiscard]] std::unique_ptr<ByteStream> accept() override {
    UniqueFd fd(::accept(fd_.get(), nullptr, nullptr));
    if (!fd) {
      fail("accept");
    }
    return std::make_unique<TcpStream>(std::move(fd));
  }

 private:
  UniqueFd fd_;
  std::string host_;
  std::uint16_t port_ = 0;
};

}  // namespace

std::unique_ptr<StreamListener> listen_tcp(const std::string& host) {
  return std::make_unique<TcpListener>(host);
}

std::unique_ptr<ByteStream> connect_tcp(const std::string& address) {
  const auto colon = address.rfind(':');
  const sockaddr_in target = resolve(
      address.substr(0, colon), static_cast<std::uint16_t>(std::stoul(address.substr(colon + 1))));
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM, 0));
  if (!fd || ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&target), sizeof(target)) != 0) {
    fail("connect to " + address);
  }
  return std::make_unique<TcpStream>(std::move(fd));
}

}  // namespace railyard::bench
