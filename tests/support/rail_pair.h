// Two rails on loopback that know each other, driven from one thread.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "railyard/rail/progress.h"
#include "railyard/rail/rail.h"

namespace railyard::testing {

// Every wait in the tests is bounded: a hang fails the test instead of
// stalling CI.
inline constexpr std::chrono::seconds kTestTimeout{60};

inline rail::RailOptions loopback_options(const std::string& address) {
  rail::RailOptions options = rail::RailOptions::from_environment();
  options.address = address;
  return options;
}

struct RailPair {
  explicit RailPair(const std::string& address_a = "127.0.0.1",
                    const std::string& address_b = "127.0.0.1")
      : a(std::make_unique<rail::Rail>(loopback_options(address_a))),
        b(std::make_unique<rail::Rail>(loopback_options(address_b))),
        a_to_b(a->insert_peer(b->address())),
        b_to_a(b->insert_peer(a->address())) {}

  // Progresses both rails until done() or kTestTimeout; returns done().
  bool run_until(const std::function<bool()>& done,
                 std::chrono::nanoseconds timeout = kTestTimeout) const {
    std::array<rail::Rail*, 2> rails{a.get(), b.get()};
    return progress_until(rails, done, timeout, a->wait_policy());
  }

  std::unique_ptr<rail::Rail> a;
  std::unique_ptr<rail::Rail> b;
  rail::RailPeer a_to_b;
  rail::RailPeer b_to_a;
};

}  // namespace railyard::testing
