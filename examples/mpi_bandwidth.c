/* railyard-mpi-bandwidth: the MPI side of railyard-mrail-bench's comparison.
 *
 * Two ranks. For each size: half round-trip latency of a ping-pong, then
 * bandwidth with a window of non-blocking sends in flight followed by an
 * acknowledgement, as osu_bw measures it. One line per size on rank 0:
 *   <size> <latency us> <bandwidth MB/s>
 * Usage: railyard-mpi-bandwidth <window> <size> [<size>...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rounds_for(size_t size, size_t budget, int low, int high) {
  size_t rounds = budget / (size ? size : 1);
  if (rounds < (size_t)low) {
    rounds = (size_t)low;
  }
  if (rounds > (size_t)high) {
    rounds = (size_t)high;
  }
  return (int)rounds;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2 || argc < 3) {
    if (rank == 0) {
      fprintf(stderr, "usage: mpirun -np 2 --bind-to none %s <window> <size>...\n", argv[0]);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int window = atoi(argv[1]);
  size_t largest = 1;
  for (int a = 2; a < argc; ++a) {
    const size_t size = strtoull(argv[a], NULL, 10);
    if (size > largest) {
      largest = size;
    }
  }
  char* buffer = malloc(largest);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)window);
  if (buffer == NULL || requests == NULL || window <= 0) {
    fprintf(stderr, "railyard-mpi-bandwidth: out of memory or bad window %d\n", window);
    free(requests);
    free(buffer);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
  for (size_t i = 0; i < largest; ++i) {
    buffer[i] = 1;
  }
  const int peer = 1 - rank;
  for (int a = 2; a < argc; ++a) {
    const size_t size = strtoull(argv[a], NULL, 10);
    const int count = (int)size;
    /* Latency. */
    const int pings = rounds_for(size, (size_t)64 << 20, 10, 1000);
    double start = 0;
    for (int i = -5; i < pings; ++i) {
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
    const double latency = (MPI_Wtime() - start) * 1e6 / (2.0 * pings);
    /* Bandwidth: windows of non-blocking transfers, each acknowledged. */
    const int windows = rounds_for(size * (size_t)window, (size_t)256 << 20, 4, 40);
    for (int w = -1; w < windows; ++w) {
      if (w == 0) {
        start = MPI_Wtime();
      }
      for (int i = 0; i < window; ++i) {
        if (rank == 0) {
          MPI_Isend(buffer, count, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[i]);
        } else {
          MPI_Irecv(buffer, count, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &requests[i]);
        }
      }
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      if (rank == 0) {
        MPI_Recv(NULL, 0, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Send(NULL, 0, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
      }
    }
    const double seconds = MPI_Wtime() - start;
    if (rank == 0) {
      printf("%zu %.3f %.3f\n", size, latency, (double)size * window * windows / seconds / 1e6);
      fflush(stdout);
    }
  }
  free(requests);
  free(buffer);
  MPI_Finalize();
  return 0;
}
