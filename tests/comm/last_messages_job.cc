// One rank of a two-rank job (under railyard-run or mpirun) whose rank 0
// sends its last messages and leaves at once, while rank 1 receives them
// only later (last_messages.h); the world must see them out before it
// closes. Run with RAILYARD_BACKGROUND_PROGRESS=0, so nothing else would,
// and RAILYARD_TIMEOUT set, so a lost message fails instead of hanging.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

#include "job_check.h"
#include "last_messages.h"
#include "railyard/comm/communicator.h"

namespace {

railyard::testing::JobCheck check;

}  // namespace

int main() {
  try {
    const railyard::comm::Communicator world = railyard::comm::Communicator::world();
    check(world.size() == 2, fmt::format("{} ranks, expected 2", world.size()));
    for (const std::string& wrong : railyard::testing::exchange_last_messages(world)) {
      check(false, wrong);
    }
    fmt::print("rank {}: {} failures\n", world.rank(), check.failures());
  } catch (const std::exception& error) {
    fmt::print(stderr, "FAILED: {}\n", error.what());
    return 1;
  }
  return check.exit_status();
}
