/* railyard-mpi-bandwidth: the MPI side of railyard-mrail-bench's comparison.
 *
 * Two ranks. For each size: half round-trip latency of a ping-pong, then
 * bandwidth with a window of non-blocking sends in flight followed by an
 * acknowledgement, as osu_bw measures it. Measured the way
 * railyard-mrail-bench measures its own subjects (bench/mrail_bench/
 * measure.cc), so the comparison is like for like: latency is the lowest
 * mean of 5 runs of <iterations> ping-pongs up to 8 KiB (after 100 untimed
 * ones; 10-500 above, at most 16 MiB each way, after 5), bandwidth the
 * median of 3 runs of 1-50 windows moving about 128 MiB (after one untimed
 * window). With --bidirectional both ranks send a window to each other at
 * once (as osu_bibw) and the bandwidth is the sum of both directions.
 * Rank 0 first prints the CPUs each rank may run on (so that the launch's
 * binding is seen, not assumed), then one line per size:
 *   # rank <r> cpus <comma list>
 *   <size> <latency us> <bandwidth MB/s>
 * Usage: railyard-mpi-bandwidth [--bidirectional] <window> <iterations> <size> [<size>...]
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kLatencyRepeats = 5, kBandwidthRepeats = 3 };
static const size_t kSmallLatencySize = 8192;

static size_t clamp_size(size_t value, size_t low, size_t high) {
  return value < low ? low : value > high ? high : value;
}

/* One run's mean half round trip, in microseconds. */
static double latency_run(char* buffer, size_t size, int rank, long iterations) {
  const int small = size <= kSmallLatencySize;
  const long pings =
      small ? iterations : (long)clamp_size(((size_t)16 << 20) / (size ? size : 1), 10, 500);
  const long warmup = small ? 100 : 5;
  const int peer = 1 - rank;
  const int count = (int)size;
  double start = 0;
  for (long i = -warmup; i < pings; ++i) {
    if (i == 0) {
      start = MPI_Wtime();
    }
    if (rank == 0) {
      MPI_Send(buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) * 1e6 / (2.0 * (double)pings);
}

static int bidirectional = 0;

/* One window of transfers, acknowledged by the receiver; bidirectional, each
 * rank also sends a window to the other (`requests` holds 2 * window). */
static void window_run(char* buffer, size_t size, int rank, int window, MPI_Request* requests) {
  const int peer = 1 - rank;
  for (int i = 0; i < window; ++i) {
    if (bidirectional) {
      MPI_Irecv(buffer, (int)size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[i]);
      MPI_Isend(buffer, (int)size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[window + i]);
    } else if (rank == 0) {
      MPI_Isend(buffer, (int)size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[i]);
    } else {
      MPI_Irecv(buffer, (int)size, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[i]);
    }
  }
  MPI_Waitall(bidirectional ? 2 * window : window, requests, MPI_STATUSES_IGNORE);
  if (rank == 0) {
    MPI_Recv(NULL, 0, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(NULL, 0, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
  }
}

/* One run's bandwidth in MB/s: windows worth about 128 MiB (1 to 50). */
static double bandwidth_run(char* buffer, size_t size, int rank, int window,
                            MPI_Request* requests) {
  const size_t per_window = (size ? size : 1) * (size_t)window;
  const size_t windows = clamp_size(((size_t)128 << 20) / per_window, 1, 50);
  const double start = MPI_Wtime();
  for (size_t w = 0; w < windows; ++w) {
    window_run(buffer, size, rank, window, requests);
  }
  return (double)(bidirectional ? 2 : 1) * (double)size * window * (double)windows /
         (MPI_Wtime() - start) / 1e6;
}

/* The CPUs this process may run on, as a comma list ("?" if unknown). */
static void cpu_list(char* out, size_t length) {
  cpu_set_t set;
  CPU_ZERO(&set);
  out[0] = '\0';
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    snprintf(out, length, "?");
    return;
  }
  size_t used = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && used < length; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      const int written = snprintf(out + used, length - used, "%s%d", used == 0 ? "" : ",", cpu);
      used += written > 0 ? (size_t)written : 0;
    }
  }
}

static void report_cpus(int rank) {
  char mine[512];
  cpu_list(mine, sizeof(mine));
  if (rank == 1) {
    MPI_Send(mine, (int)sizeof(mine), MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    return;
  }
  char other[512];
  MPI_Recv(other, (int)sizeof(other), MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  other[sizeof(other) - 1] = '\0';
  printf("# rank 0 cpus %s\n# rank 1 cpus %s\n", mine, other);
  fflush(stdout);
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a;
  const double y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const char* program = argv[0];
  if (argc > 1 && strcmp(argv[1], "--bidirectional") == 0) {
    bidirectional = 1;
    --argc;
    ++argv;
  }
  if (ranks != 2 || argc < 4) {
    if (rank == 0) {
      fprintf(stderr,
              "usage: mpirun -np 2 --bind-to none %s [--bidirectional] <window> <iterations> "
              "<size>...\n",
              program);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int window = atoi(argv[1]);
  const long iterations = atol(argv[2]);
  size_t largest = 1;
  for (int a = 3; a < argc; ++a) {
    const size_t size = strtoull(argv[a], NULL, 10);
    if (size > largest) {
      largest = size;
    }
  }
  char* buffer = malloc(largest);
  MPI_Request* requests = window > 0 ? malloc(sizeof(MPI_Request) * 2 * (size_t)window) : NULL;
  if (buffer == NULL || requests == NULL || iterations <= 0) {
    fprintf(stderr,
            "railyard-mpi-bandwidth: out of memory, or window %d or iterations %ld not above 0\n",
            window, iterations);
    free(requests);
    free(buffer);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
  for (size_t i = 0; i < largest; ++i) {
    buffer[i] = 1;
  }
  report_cpus(rank);
  for (int a = 3; a < argc; ++a) {
    const size_t size = strtoull(argv[a], NULL, 10);
    double latency = latency_run(buffer, size, rank, iterations);
    for (int r = 1; r < kLatencyRepeats; ++r) {
      const double run = latency_run(buffer, size, rank, iterations);
      latency = run < latency ? run : latency;
    }
    window_run(buffer, size, rank, window, requests); /* untimed: warms the connections */
    double bandwidths[kBandwidthRepeats];
    for (int r = 0; r < kBandwidthRepeats; ++r) {
      bandwidths[r] = bandwidth_run(buffer, size, rank, window, requests);
    }
    qsort(bandwidths, kBandwidthRepeats, sizeof(double), by_value);
    if (rank == 0) {
      printf("%zu %.3f %.3f\n", size, latency, bandwidths[kBandwidthRepeats / 2]);
      fflush(stdout);
    }
  }
  free(requests);
  free(buffer);
  MPI_Finalize();
  return 0;
}
