// Ranks of one job run as forked processes of a test, each on the loopback
// rails, that find each other through a root bootstrap on this machine.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/comm/communicator.h"
#include "tools/support/forked_peer.h"
#include "tools/support/free_port.h"

namespace railyard::testing {

// Forks `size` processes; process r runs body(r, world, pipe) with its
// world Communicator (options from the environment as the child sees it
// after `prepare(r)`, which may set variables such as RAILYARD_HOST_ID).
// Every rank's blocking calls end within `timeout`. Returns the processes,
// for the test to read their pipes and wait for them.
inline std::vector<std::unique_ptr<tools::ForkedPeer>> fork_ranks(
    int size, const std::string& job_key, std::chrono::milliseconds timeout,
    const std::function<void(int)>& prepare,
    const std::function<void(int, const comm::Communicator&, tools::Pipe&)>& body) {
  bootstrap::BootstrapOptions bootstrap;
  bootstrap.root = fmt::format("127.0.0.1:{}", tools::free_tcp_port());
  bootstrap.job_key = job_key;
  bootstrap.timeout = timeout;
  std::vector<std::unique_ptr<tools::ForkedPeer>> ranks;
  ranks.reserve(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) {
    ranks.push_back(std::make_unique<tools::ForkedPeer>([=](tools::Pipe& pipe) {
      prepare(rank);
      comm::CommunicatorOptions options = comm::CommunicatorOptions::from_environment();
      options.timeout = timeout;  // a rank that fails leaves; the others end too
      const comm::Communicator world = comm::Communicator::world(
          options,
          [&](std::span<const std::byte> card) -> std::unique_ptr<bootstrap::Bootstrap> {
            return std::make_unique<bootstrap::RootBootstrap>(rank, size, card, bootstrap);
          },
          timeout);
      body(rank, world, pipe);
    }));
  }
  return ranks;
}

}  // namespace railyard::testing
