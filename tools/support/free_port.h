// A TCP port no socket uses right now, for a root rendezvous address chosen
// before the process that will listen on it exists (railyard-run, tests).
// The kernel picks it (bind to port 0), and the port is released at once:
// another process could take it in between, which the kernel's choice of
// rarely reused ephemeral ports makes unlikely; the root then fails to
// listen, naming the address.
#pragma once

#include <cstdint>
#include <string>

namespace railyard::tools {

// Throws railyard::Error naming the socket call that failed.
[[nodiscard]] std::uint16_t free_tcp_port(const std::string& ipv4_host = "127.0.0.1");

}  // namespace railyard::tools
