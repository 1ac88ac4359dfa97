// One rank of a two-rank job (under railyard-run or mpirun) whose rank 0
// sends its last messages and leaves at once, while rank 1 receives them
// only later. A send is done once its payload is copied out, so those
// messages may still need rank 0's progress after its last call (a first
// message waits for its connection); the world must see them out before it
// closes. Run with RAILYARD_BACKGROUND_PROGRESS=0, so nothing else would,
// and RAILYARD_TIMEOUT set, so a lost message fails instead of hanging.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <thread>
#include <vector>

#include "job_check.h"
#include "railyard/comm/communicator.h"

namespace {

using namespace std::chrono_literals;

railyard::testing::JobCheck check;

}  // namespace

int main() {
  try {
    const railyard::comm::Communicator world = railyard::comm::Communicator::world();
    check(world.size() == 2, fmt::format("{} ranks, expected 2", world.size()));
    // The first is small enough to be injected; the others take send
    // buffers, the last two fragments.
    const std::vector<std::size_t> sizes{8, 1024, std::size_t{30} * 1024};
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
        std::this_thread::sleep_for(200ms);  // rank 0 is on its way out by now
      }
      const railyard::comm::Status status = world.recv(message.data(), message.size(), 0, tag);
      check(status.bytes == sizes[i],
            fmt::format("message {}: {} bytes, expected {}", i, status.bytes, sizes[i]));
      check(std::all_of(message.begin(), message.end(),
                        [fill](std::uint8_t byte) { return byte == fill; }),
            fmt::format("message {}: its bytes differ from what was sent", i));
    }
    fmt::print("rank {}: {} failures\n", world.rank(), check.failures());
  } catch (const std::exception& error) {
    fmt::print(stderr, "FAILED: {}\n", error.what());
    return 1;
  }
  return check.exit_status();
}
