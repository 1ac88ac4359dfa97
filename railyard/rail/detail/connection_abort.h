// Closing a rail's endpoint does not end its TCP connections at once: some
// providers keep a closed endpoint's sockets open for a while (`net` keeps
// most of them), and a socket closed the graceful way still sends what its
// send queue holds, retransmitting until the peer acknowledges it. So an
// RMA write that a reset ended (Rail::reset) could reach the peer's memory
// seconds later, once a dead link returns, and overwrite what was written
// there since. Aborting the connection (a TCP reset; the send queue
// dropped) before the close prevents that.
#pragma once

#include <cstddef>

namespace railyard::rail::detail {

// Aborts every connected stream socket that the epoll set `wait_fd`
// watches, directly or through nested epoll sets (the provider's progress
// sets, which /proc/self/fdinfo lists); returns how many. A wait object that
// is no epoll set (verbs' completion channel: queue pairs stop sending when
// destroyed), or -1, finds none.
std::size_t abort_connections(int wait_fd);

}  // namespace railyard::rail::detail
