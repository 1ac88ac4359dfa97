// The exchange of a rank that sends its last messages and leaves at once,
// and a peer that receives them only later: run by ranks as threads
// (tests/comm/communicator_test.cc) and as processes under the launchers
// (tests/comm/last_messages_job.cc). A send is done once its payload is
// copied out, so those messages may still need the sender's progress after
// its last call (a first message waits for its connection).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "railyard/comm/communicator.h"

namespace railyard::testing {

// Rank 0 sends three messages to rank 1 and returns; rank 1 waits 200 ms,
// so that rank 0 is on its way out, then receives them. Returns what rank 1
// found wrong (nothing on rank 0); throws what the calls throw.
inline std::vector<std::string> exchange_last_messages(const comm::Communicator& world) {
  using namespace std::chrono_literals;
  // The first is small enough to be injected; the others take send
  // buffers, the last two fragments where they are 16 KiB.
  const std::vector<std::size_t> sizes{8, 1024, std::size_t{30} * 1024};
  std::vector<std::string> wrong;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto fill = static_cast<std::uint8_t>(i + 1);
    std::vector<std::uint8_t> message(sizes[i], 0);
    const int tag = static_cast<int>(i);
    if (world.rank() == 0) {
      std::fill(message.begin(), message.end(), fill);
      world.send(message.data(), message.size(), 1, tag);
      continue;
    }
    if (i == 0) {
      std::this_thread::sleep_for(200ms);
    }
    const comm::Status status = world.recv(message.data(), message.size(), 0, tag);
    if (status.bytes != sizes[i]) {
      wrong.push_back(fmt::format("message {}: {} bytes, expected {}", i, status.bytes, sizes[i]));
    }
    if (!std::all_of(message.begin(), message.end(),
                     [fill](std::uint8_t byte) { return byte == fill; })) {
      wrong.push_back(fmt::format("message {}: its bytes differ from what was sent", i));
    }
  }
  return wrong;
}

}  // namespace railyard::testing
