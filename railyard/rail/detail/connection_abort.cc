// Finding the sockets behind a rail's wait object and aborting their
// connections (detail/connection_abort.h).
#include "railyard/rail/detail/connection_abort.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace railyard::rail::detail {
namespace {

// What /proc/self/fd/<fd> points at: "anon_inode:[eventpoll]", "socket:[…]".
std::string target_of(int fd) {
  std::array<char, 128> link{};
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t length = ::readlink(path.c_str(), link.data(), link.size() - 1);
  return length > 0 ? std::string(link.data(), static_cast<std::size_t>(length)) : std::string();
}

// The fds an epoll set watches: its fdinfo has a line "tfd: <fd> events: …"
// for each.
std::vector<int> watched_by(int epoll_fd) {
  std::vector<int> fds;
  std::ifstream info("/proc/self/fdinfo/" + std::to_string(epoll_fd));
  std::string line;
  constexpr std::string_view kTarget = "tfd:";
  while (std::getline(info, line)) {
    if (!line.starts_with(kTarget)) {
      continue;
    }
    const std::string_view whole{line};
    std::string_view rest = whole.substr(kTarget.size());
    rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
    int fd = -1;
    if (std::from_chars(rest.data(), rest.data() + rest.size(), fd).ec == std::errc() && fd >= 0) {
      fds.push_back(fd);
    }
  }
  return fds;
}

bool abort_connection(int fd) {
  int type = 0;
  socklen_t length = sizeof(type);
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) {
    return false;
  }
  int listening = 0;
  length = sizeof(listening);
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || listening != 0) {
    return false;  // holds no data to send
  }
  // Disconnecting (connect to AF_UNSPEC) aborts the connection now: a
  // reset goes to the peer and the send queue is dropped, whoever still
  // holds the fd. Lingering for no time makes a close do the same, for a
  // connection the disconnect refused.
  const linger abort{.l_onoff = 1, .l_linger = 0};
  (void)::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
  sockaddr unspecified{};
  unspecified.sa_family = AF_UNSPEC;
  return ::connect(fd, &unspecified, sizeof(unspecified)) == 0;
}

}  // namespace

std::size_t abort_connections(int wait_fd) {
  if (wait_fd < 0) {
    return 0;
  }
  // Bounded: a process holds finitely many fds, and each is looked at once.
  constexpr std::size_t kMostFds = 65536;
  std::unordered_set<int> seen{wait_fd};
  std::vector<int> epoll_sets{wait_fd};
  std::size_t aborted = 0;
  while (!epoll_sets.empty() && seen.size() < kMostFds) {
    const int set = epoll_sets.back();
    epoll_sets.pop_back();
    if (target_of(set) != "anon_inode:[eventpoll]") {
      continue;
    }
    for (const int fd : watched_by(set)) {
      if (!seen.insert(fd).second) {
        continue;
      }
      const std::string target = target_of(fd);
      if (target == "anon_inode:[eventpoll]") {
        epoll_sets.push_back(fd);
      } else if (target.starts_with("socket:") && abort_connection(fd)) {
        ++aborted;
      }
    }
  }
  return aborted;
}

}  // namespace railyard::rail::detail
