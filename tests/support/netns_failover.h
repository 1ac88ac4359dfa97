// For the tests that take rails down under one large striped transfer on
// the emulated hosts (tests/mrail/netns_*_failover_test.cc): the endpoint
// options they share, the transfer's size, the check that ends a forked
// host with a reason, and their fixture.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "netns_hosts.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::testing {

inline constexpr auto kFailoverRailTimeout = std::chrono::milliseconds(2000);
inline constexpr auto kFailoverRailRetry = std::chrono::milliseconds(500);

// RAILYARD_FAILOVER_TRANSFER_MIB, in bytes (default 256 MiB).
inline std::size_t failover_transfer_bytes() {
  const std::string mib = netns_variable("RAILYARD_FAILOVER_TRANSFER_MIB");
  return (mib.empty() ? std::size_t{256} : std::stoul(mib)) << 20;
}

// An endpoint on the host's first `rails` rails (`rails_variable` names
// them), striping everything, with failover's timeout and retry above.
inline mrail::Options failover_options(const char* rails_variable, std::size_t rails) {
  mrail::Options options;
  options.rails = comma_list(netns_variable(rails_variable));
  options.rails.resize(rails);
  options.policies = mrail::PolicyTable::parse("policy", "-1:striping");
  options.rail_timeout = kFailoverRailTimeout;
  options.rail_retry = kFailoverRailRetry;
  return options;
}

// Ends a forked host with `what` as its reason when `condition` is false.
inline void check(bool condition, const std::string& what) {
  if (!condition) {
    throw std::runtime_error(what);
  }
}

// Whether every path of the endpoint is in service.
inline bool every_path_up(const mrail::Endpoint& endpoint) {
  const mrail::EndpointCounters counters = endpoint.counters();
  return std::all_of(counters.paths.begin(), counters.paths.end(),
                     [](const mrail::PathTraffic& path) { return path.up; });
}

// A test parameterised by `Param` that needs the emulated hosts' 4 rails,
// skipped with the way to run it when they are not there.
template <typename Param>
class NetnsFailoverTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if (netns_variable("RAILYARD_NETNS_B").empty() ||
        comma_list(netns_variable("RAILYARD_RAILS_B")).size() < 4) {
      GTEST_SKIP() << "needs 4 emulated rails: run through scripts/netns-rails.sh --rails 4 as "
                      "root";
    }
  }
};

}  // namespace railyard::testing
