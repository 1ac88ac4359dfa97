// Multi-rail endpoints on loopback rails that know each other, driven from
// one thread.
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "railyard/mrail/endpoint.h"

namespace railyard::testing {

// "127.0.0.1,...,127.0.0.<n>": n loopback rails on distinct addresses.
inline std::vector<std::string> loopback_rails(std::size_t count) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i <= count; ++i) {
    out.push_back("127.0.0." + std::to_string(i));
  }
  return out;
}

inline mrail::Options endpoint_options(std::size_t rails, const std::string& policy_table = "") {
  mrail::Options options;
  options.rails = loopback_rails(rails);
  if (!policy_table.empty()) {
    options.policies = mrail::PolicyTable::parse("test policy table", policy_table);
  }
  options.wait = rail::WaitPolicy::from_environment();
  return options;
}

struct EndpointGroup {
  explicit EndpointGroup(const std::vector<mrail::Options>& options) {
    for (const auto& o : options) {
      endpoints.push_back(std::make_unique<mrail::Endpoint>(o));
      pointers.push_back(endpoints.back().get());
    }
    // ids[i][j]: endpoint i's id for endpoint j.
    ids.resize(endpoints.size());
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
      for (const auto& other : endpoints) {
        ids[i].push_back(endpoints[i]->insert_peer(other->address()));
      }
    }
  }

  bool run_until(const std::function<bool()>& done,
                 std::chrono::nanoseconds timeout = std::chrono::seconds(60)) const {
    return mrail::Endpoint::progress_until(pointers, done, timeout);
  }

  mrail::Endpoint& operator[](std::size_t i) const { return *endpoints[i]; }

  std::vector<std::unique_ptr<mrail::Endpoint>> endpoints;
  std::vector<mrail::Endpoint*> pointers;
  std::vector<std::vector<mrail::PeerId>> ids;
};

}  // namespace railyard::testing
