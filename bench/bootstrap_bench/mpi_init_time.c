/* The baseline for railyard-bootstrap-bench: how long after its processes
 * start an Open MPI job is past MPI_Init (which also exchanges every rank's
 * addresses through PMIx), as the slowest rank sees it. Same result line. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "process_age.h"

static double now_ms(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  const double entered = now_ms(CLOCK_MONOTONIC);
  const double started = railyard_process_age_ms();
  MPI_Init(&argc, &argv);
  const double init_ms = now_ms(CLOCK_MONOTONIC) - entered;
  double mine[2] = {started >= 0 ? started + init_ms : -1, init_ms};
  double worst[2] = {0, 0};
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("RESULT label=%s ranks=%d ready_after_start_ms=%.1f world_ms=%.1f\n",
           argc > 1 ? argv[1] : "MPI_Init", size, worst[0], worst[1]);
  }
  MPI_Finalize();
  return 0;
}
