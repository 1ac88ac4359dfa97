/* The baseline for railyard-bootstrap-bench: how long after its processes
 * start an Open MPI job is past MPI_Init (which also exchanges every rank's
 * addresses through PMIx), as the slowest rank sees it. Same result line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* Milliseconds since this process started (/proc/self/stat field 22). */
static double ms_since_start(void) {
  char stat[4096];
  FILE* file = fopen("/proc/self/stat", "r");
  if (file == NULL) {
    return -1;
  }
  size_t got = fread(stat, 1, sizeof(stat) - 1, file);
  fclose(file);
  stat[got] = '\0';
  char* field = strrchr(stat, ')');
  if (field == NULL) {
    return -1;
  }
  /* Fields 3 to 21 follow the command name, then starttime (field 22). */
  const char* cursor = field + 1;
  for (int skipped = 0; skipped < 19; ++skipped) {
    cursor = strchr(cursor + 1, ' ');
    if (cursor == NULL) {
      return -1;
    }
  }
  char* end = NULL;
  const unsigned long long start_ticks = strtoull(cursor + 1, &end, 10);
  if (end == cursor + 1) {
    return -1;
  }
  return now_ms(CLOCK_BOOTTIME) - (double)start_ticks * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char** argv) {
  const double entered = now_ms(CLOCK_MONOTONIC);
  const double started = ms_since_start();
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
