// Every rank contributes a vector; every rank gets the sum, striped over
// all of its NICs. Start it with any launcher:
//   railyard-run -n 4 ./railyard-hello-allreduce
//   mpirun -np 4 ./railyard-hello-allreduce
#include <cstdio>
#include <exception>
#include <vector>

#include "railyard/comm/collectives.h"
#include "railyard/comm/communicator.h"

int main() try {
  using namespace railyard;
  const comm::Communicator world = comm::Communicator::world();
  std::vector<float> values(1 << 20, static_cast<float>(world.rank()));
  comm::allreduce(world, comm::kInPlace, values.data(), values.size(), comm::DataType::kFloat32,
                  comm::ReduceOp::kSum);
  const float expected = static_cast<float>(world.size() * (world.size() - 1)) / 2;
  if (values.front() != expected || values.back() != expected) {
    std::fprintf(stderr, "rank %d: got %g, expected %g\n", world.rank(), values.front(), expected);
    return 1;
  }
  if (world.rank() == 0) {
    std::printf("allreduce of %zu floats over %d ranks: every element is %g\n", values.size(),
                world.size(), expected);
  }
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "hello_allreduce: %s\n", error.what());
  return 1;
}
