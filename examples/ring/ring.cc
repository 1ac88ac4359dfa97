// Passes a token around the ranks of a job a few times, each rank adding
// its rank, and checks the sum: the smallest complete railyard program.
//   railyard-run -n 4 railyard-ring
//   mpirun -np 4 --bind-to none railyard-ring     (bootstraps through PMIx)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "railyard/comm/communicator.h"

namespace {

int run(int argc, char** argv) {
  const int laps = argc > 1 ? std::atoi(argv[1]) : 3;  // NOLINT(cert-err34-c): a demo argument
  railyard::comm::Communicator world = railyard::comm::Communicator::world();
  const int rank = world.rank();
  const int size = world.size();
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  // A token big enough to be striped over the rails, plus the running sum.
  std::vector<long> token(64 * 1024 + 1, 0);
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      // Non-blocking, so that a job of one rank (sending to itself) works.
      std::vector<long> outgoing = token;
      railyard::comm::Request send =
          world.isend(outgoing.data(), outgoing.size() * sizeof(long), right, lap);
      (void)world.recv(token.data(), token.size() * sizeof(long), left, lap);
      send.wait();
    } else {
      (void)world.recv(token.data(), token.size() * sizeof(long), left, lap);
      for (long& value : token) {
        value += rank;
      }
      world.send(token.data(), token.size() * sizeof(long), right, lap);
    }
  }
  if (rank == 0) {
    const long expected = static_cast<long>(laps) * size * (size - 1) / 2;
    for (const long value : token) {
      if (value != expected) {
        std::fprintf(stderr, "ring: rank 0 got %ld after %d laps of %d ranks, expected %ld\n",
                     value, laps, size, expected);
        return 1;
      }
    }
    std::printf("ring: %d laps of %d ranks over %zu bytes: every value is %ld\n", laps, size,
                token.size() * sizeof(long), expected);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  return run(argc, argv);
} catch (const std::exception& error) {
  std::fprintf(stderr, "railyard-ring: %s\n", error.what());
  return 1;
}
