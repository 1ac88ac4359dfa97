// Ranks of one job as threads of one process, each with its own endpoint on
// two loopback rails, joined through a root bootstrap: fast tests of the
// Communicator's API and of what is built on it.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/comm/communicator.h"
#include "railyard/rstream/listener.h"
#include "scoped_env.h"

namespace railyard::testing {

// Runs body(communicator) on `size` threads, one rank each; returns each
// rank's exception text ("" when it returned).
// With `host_of`, rank r says it runs on host host_of(r)
// (CommunicatorOptions::host_id), so threads stand for ranks of several hosts;
// with `adjust`, rank r's options are changed by adjust(r, options).
inline std::vector<std::string> run_ranks(
    int size, const std::function<void(comm::Communicator&)>& body,
    comm::CommunicatorOptions options = {}, const std::function<int(int)>& host_of = {},
    const std::function<void(int, comm::CommunicatorOptions&)>& adjust = {}) {
  const ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1,127.0.0.2");
  rstream::Listener listener("127.0.0.1:0");
  bootstrap::BootstrapOptions bootstrap;
  bootstrap.root = listener.address().to_string();
  bootstrap.job_key = "communicator-test";
  bootstrap.timeout = std::chrono::seconds(30);
  std::vector<std::string> errors(static_cast<std::size_t>(size));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        comm::CommunicatorOptions mine = options;
        if (host_of) {
          mine.host_id = "thread-host-" + std::to_string(host_of(rank));
        }
        if (adjust) {
          adjust(rank, mine);
        }
        comm::Communicator world = comm::Communicator::world(
            mine,
            [&](std::span<const std::byte> card) -> std::unique_ptr<bootstrap::Bootstrap> {
              if (rank == 0) {
                return std::make_unique<bootstrap::RootBootstrap>(std::move(listener), size, card,
                                                                  bootstrap);
              }
              return std::make_unique<bootstrap::RootBootstrap>(rank, size, card, bootstrap);
            },
            bootstrap.timeout);
        body(world);
      } catch (const std::exception& error) {
        errors[static_cast<std::size_t>(rank)] = error.what();
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  return errors;
}

inline void expect_clean(const std::vector<std::string>& errors) {
  for (std::size_t rank = 0; rank < errors.size(); ++rank) {
    EXPECT_EQ(errors[rank], "") << "rank " << rank;
  }
}

}  // namespace railyard::testing
