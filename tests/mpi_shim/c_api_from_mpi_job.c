/* railyard_comm_init_mpi in an MPI program: railyard communicators of
 * MPI_COMM_WORLD and of each half of a split, an allreduce on each checked
 * against MPI's own, the halves' ranks in the split's order; destroyed
 * before MPI_Finalize. Exit status 0 when everything matched. */
#include <mpi.h>
#include <railyard/mpi_shim/railyard_mpi.h>
#include <stdio.h>

static int failures = 0;

static void check(int condition, const char* what, int rank) {
  if (!condition) {
    ++failures;
    fprintf(stderr, "rank %d: FAILED: %s (%s)\n", rank, what, railyard_last_error());
  }
}

static void compare(MPI_Comm mpi, int world_rank) {
  railyard_comm_t comm = NULL;
  check(railyard_comm_init_mpi(mpi, &comm) == RAILYARD_SUCCESS, "railyard_comm_init_mpi",
        world_rank);
  if (comm == NULL) {
    return;
  }
  int mpi_rank = 0;
  int mpi_size = 0;
  int rank = -1;
  int size = -1;
  MPI_Comm_rank(mpi, &mpi_rank);
  MPI_Comm_size(mpi, &mpi_size);
  railyard_comm_rank(comm, &rank);
  railyard_comm_size(comm, &size);
  check(rank == mpi_rank && size == mpi_size, "rank and size as MPI's", world_rank);
  enum { kCount = 50000 };
  static long long mine[kCount];
  static long long ours[kCount];
  static long long theirs[kCount];
  for (int i = 0; i < kCount; ++i) {
    mine[i] = (long long)world_rank * 1000003LL + i;
  }
  check(railyard_allreduce(mine, ours, kCount, RAILYARD_INT64, RAILYARD_SUM, comm) ==
            RAILYARD_SUCCESS,
        "railyard_allreduce", world_rank);
  PMPI_Allreduce(mine, theirs, kCount, MPI_LONG_LONG, MPI_SUM, mpi);
  int same = 1;
  for (int i = 0; i < kCount; ++i) {
    same &= ours[i] == theirs[i];
  }
  check(same, "railyard's sum equals MPI's", world_rank);
  check(railyard_comm_destroy(comm) == RAILYARD_SUCCESS, "railyard_comm_destroy", world_rank);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  compare(MPI_COMM_WORLD, rank);
  MPI_Comm half = NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  compare(half, rank);
  MPI_Comm_free(&half);
  railyard_comm_t none = NULL;
  check(railyard_comm_init_mpi(MPI_COMM_NULL, &none) == RAILYARD_INVALID_ARGUMENT && none == NULL,
        "MPI_COMM_NULL refused", rank);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("railyard_comm_init_mpi: %d failures\n", total);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
