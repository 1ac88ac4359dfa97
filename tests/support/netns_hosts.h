// For tests run on the emulated hosts of scripts/netns-rails.sh: reading
// the variables it sets, and entering a host's network namespace.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "railyard/common/detail/parse.h"
#include "tools/support/network_namespace.h"

namespace railyard::testing {

// A variable netns-rails.sh sets (RAILYARD_NETNS_A, RAILYARD_RAILS_B ...),
// empty when unset.
inline std::string netns_variable(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  return value == nullptr ? std::string() : std::string(value);
}

// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  for (const auto piece : split(text, ',')) {
    out.emplace_back(piece);
  }
  return out;
}

// Moves the calling process (a forked child) into the named namespace.
inline void enter_namespace(const std::string& name) {
  if (name.empty()) {
    throw std::runtime_error("no network namespace named (run through scripts/netns-rails.sh)");
  }
  tools::enter_network_namespace(name);
}

// Sets host `host`'s ('a' or 'b') end of rail `rail` (0-based) up or down;
// false when `ip` failed.
inline bool set_link(char host, std::size_t rail, bool up) {
  const std::string side(1, static_cast<char>(host - 'a' + 'A'));
  const std::string device =
      comma_list(netns_variable(("RAILYARD_RAIL_DEVICES_" + side).c_str())).at(rail);
  const std::string command = "ip netns exec " +
                              netns_variable(("RAILYARD_NETNS_" + side).c_str()) +
                              " ip link set dev " + device + (up ? " up" : " down");
  return std::system(command.c_str()) == 0;  // NOLINT(concurrency-mt-unsafe, cert-env33-c)
}

// Brings links a test took down back up however the test ends: the next
// test uses the rails.
struct LinksRestored {
  char host = 'b';
  std::vector<std::size_t> rails;
  LinksRestored() = default;
  LinksRestored(const LinksRestored&) = delete;
  LinksRestored& operator=(const LinksRestored&) = delete;
  LinksRestored(LinksRestored&&) = delete;
  LinksRestored& operator=(LinksRestored&&) = delete;
  ~LinksRestored() {
    for (const std::size_t rail : rails) {
      (void)set_link(host, rail, true);
    }
  }
};

}  // namespace railyard::testing
