// Where a root rank listens when a program forms its job itself rather
// than under a launcher: the C API's unique ids and the torch backend's
// store rendezvous (docs/c-api.md, docs/pytorch.md).
#pragma once

#include <string>
#include <string_view>

namespace railyard::bootstrap {

// The variable that overrides the choice: an interface's name (its IPv4
// address is taken) or an address of this host as given.
inline constexpr const char* kRootHostVariable = "RAILYARD_UNIQUE_ID_HOST";

// RAILYARD_UNIQUE_ID_HOST when set; else `preferred` when it is an address
// of one of this host's interfaces (the torch backend passes MASTER_ADDR,
// which every rank reaches); else the first IPv4 interface that is up and
// not loopback; else 127.0.0.1. Throws ConfigError for an empty value or
// one with spaces.
[[nodiscard]] std::string root_listen_host(std::string_view preferred = {});

}  // namespace railyard::bootstrap
