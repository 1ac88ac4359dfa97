// detail::abort_connections: the connections of the stream sockets behind a
// wait object's epoll sets, nested ones included, are aborted (the peer
// reads a reset) while their fds stay open; listening and datagram sockets,
// and fds outside the sets, are left as they are.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>

#include "railyard/rail/detail/connection_abort.h"

namespace railyard::rail {
namespace {

// An fd closed when the test ends.
struct Fd {
  explicit Fd(int value) : fd(value) {}
  ~Fd() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&&) = delete;
  Fd& operator=(Fd&&) = delete;
  int fd;
};

linger linger_of(int fd) {
  linger value{};
  socklen_t length = sizeof(value);
  EXPECT_EQ(::getsockopt(fd, SOL_SOCKET, SO_LINGER, &value, &length), 0);
  return value;
}

void watch(int epoll_fd, int fd) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = fd;
  ASSERT_EQ(::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event), 0);
}

TEST(ConnectionAbort, ConnectedStreamSocketsBehindNestedEpollSetsAbortOnClose) {
  // A listening socket on loopback, a connection to it (both ends), and a
  // datagram socket.
  const Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(listener.fd, 4), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const Fd client(::socket(AF_INET, SOCK_STREAM, 0));
  ASSERT_EQ(::connect(client.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const Fd accepted(::accept(listener.fd, nullptr, nullptr));
  ASSERT_GE(accepted.fd, 0);
  const Fd datagram(::socket(AF_INET, SOCK_DGRAM, 0));
  // The wait object watches the listener and a nested set; the nested set
  // watches the accepted end, the datagram socket, and the first set again
  // (a cycle, which must not loop). The client end is watched by neither.
  const Fd outer(::epoll_create1(0));
  const Fd inner(::epoll_create1(0));
  watch(outer.fd, listener.fd);
  watch(outer.fd, inner.fd);
  watch(inner.fd, accepted.fd);
  watch(inner.fd, datagram.fd);

  EXPECT_EQ(detail::abort_connections(outer.fd), 1U);
  EXPECT_EQ(linger_of(accepted.fd).l_onoff, 1);
  EXPECT_EQ(linger_of(client.fd).l_onoff, 0) << "a socket outside the sets was changed";
  EXPECT_EQ(linger_of(listener.fd).l_onoff, 0) << "the listening socket was changed";
  // The connection is reset while the fd is still open: the other end
  // reads ECONNRESET, not an orderly end of stream, and the aborted end
  // sends nothing more.
  char byte = 0;
  EXPECT_EQ(::recv(client.fd, &byte, 1, 0), -1);
  EXPECT_EQ(errno, ECONNRESET);
  EXPECT_EQ(::send(accepted.fd, "late", 4, MSG_NOSIGNAL), -1);
}

TEST(ConnectionAbort, AWaitObjectThatIsNoEpollSetFindsNothing) {
  EXPECT_EQ(detail::abort_connections(-1), 0U);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const Fd read_end(pipe_fds[0]);
  const Fd write_end(pipe_fds[1]);
  EXPECT_EQ(detail::abort_connections(read_end.fd), 0U);
}

}  // namespace
}  // namespace railyard::rail
