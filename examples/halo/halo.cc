// A one-sided halo exchange: heat diffusing along a rod cut into one piece
// per rank. Each step, every rank puts its edge cells straight into its
// neighbours' ghost cells (an RMA window over them), fences, and updates its
// cells from their neighbours. Every rank also computes the whole rod alone
// and checks that its piece matches bit for bit.
//   railyard-run -n 4 railyard-halo [--cells 256] [--steps 500]
//   mpirun -np 4 --bind-to none railyard-halo
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "railyard/comm/communicator.h"
#include "railyard/comm/window.h"

namespace {

using railyard::comm::Communicator;
using railyard::comm::Window;

// The rod's ends are held at these temperatures.
constexpr double kLeftEnd = 100.0;
constexpr double kRightEnd = 0.0;
constexpr double kDiffusion = 0.25;

// One explicit step of the heat equation over cells[1..n], reading the
// ghost cells cells[0] and cells[n + 1].
void step(const std::vector<double>& cells, std::vector<double>& next) {
  for (std::size_t i = 1; i + 1 < cells.size(); ++i) {
    next[i] = cells[i] + kDiffusion * (cells[i - 1] - 2 * cells[i] + cells[i + 1]);
  }
}

// The whole rod, computed by one rank, for the check.
std::vector<double> serial_rod(std::size_t cells, int steps) {
  std::vector<double> rod(cells + 2, 0.0);
  rod.front() = kLeftEnd;
  rod.back() = kRightEnd;
  std::vector<double> next = rod;
  for (int s = 0; s < steps; ++s) {
    step(rod, next);
    std::swap(rod, next);
  }
  return rod;
}

// The value of flag `name` in argv, within [1, most]; `fallback` when absent.
long flag(int argc, char** argv, const std::string& name, long fallback, long most) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) {
      const long value = std::strtol(argv[i + 1], nullptr, 10);
      if (value < 1 || value > most) {
        throw std::invalid_argument(name + " '" + argv[i + 1] + "' is invalid: expected 1 to " +
                                    std::to_string(most));
      }
      return value;
    }
  }
  return fallback;
}

int run(int argc, char** argv) {
  const auto cells_per_rank = static_cast<std::size_t>(flag(argc, argv, "--cells", 256, 1 << 24));
  const auto steps = static_cast<int>(flag(argc, argv, "--steps", 500, 1 << 20));

  Communicator world = Communicator::world();
  const int rank = world.rank();
  const int size = world.size();
  // Ghost cells, double-buffered by the step's parity: step s writes the
  // pair for s % 2, so a neighbour one step ahead never overwrites a ghost
  // this rank is still reading. [left even, left odd, right even, right odd]
  std::array<double, 4> ghosts{};
  Window window(world, ghosts.data(), sizeof(ghosts));
  const auto slot = [](bool right_ghost, int parity) {
    return static_cast<std::uint64_t>((right_ghost ? 2 : 0) + parity) * sizeof(double);
  };

  std::vector<double> cells(cells_per_rank + 2, 0.0);
  std::vector<double> next = cells;
  for (int s = 0; s < steps; ++s) {
    const int parity = s % 2;
    // My first cell is my left neighbour's right ghost, and the reverse.
    if (rank > 0) {
      window.put(&cells[1], sizeof(double), rank - 1, slot(true, parity));
    }
    if (rank + 1 < size) {
      window.put(&cells[cells_per_rank], sizeof(double), rank + 1, slot(false, parity));
    }
    window.fence();
    const auto left_ghost = static_cast<std::size_t>(parity);
    cells.front() = rank > 0 ? ghosts[left_ghost] : kLeftEnd;
    cells.back() = rank + 1 < size ? ghosts[left_ghost + 2] : kRightEnd;
    step(cells, next);
    std::swap(cells, next);
  }

  const std::vector<double> rod =
      serial_rod(cells_per_rank * static_cast<std::size_t>(size), steps);
  double worst = 0;
  for (std::size_t i = 1; i <= cells_per_rank; ++i) {
    worst = std::max(worst,
                     std::abs(cells[i] - rod[static_cast<std::size_t>(rank) * cells_per_rank + i]));
  }
  // Rank 0 collects every rank's verdict, so one line tells the whole job.
  if (rank == 0) {
    for (int other = 1; other < size; ++other) {
      double theirs = 0;
      (void)world.recv(&theirs, sizeof(theirs), other, 0);
      worst = std::max(worst, theirs);
    }
    std::printf("halo: %d ranks x %zu cells, %d steps: largest difference from the serial run %g\n",
                size, cells_per_rank, steps, worst);
  } else {
    world.send(&worst, sizeof(worst), 0, 0);
  }
  window.fence();
  return worst == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  return run(argc, argv);
} catch (const std::exception& error) {
  std::fprintf(stderr, "railyard-halo: %s\n", error.what());
  return 1;
}
