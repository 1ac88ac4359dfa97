/* An MPI program that knows nothing of railyard: a large MPI_Allreduce and
 * an MPI_Bcast on MPI_COMM_WORLD, each checked. Preload the MPI shim and its
 * large collectives go over every NIC, unchanged:
 *   mpicc allreduce_mpi.c -o allreduce_mpi
 *   mpirun -np 4 -x RAILYARD_MPI_VERBOSE=1 \
 *          -x LD_PRELOAD=/usr/local/lib/librailyard_mpi.so ./allreduce_mpi */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kCount = 1 << 20 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* values = malloc(kCount * sizeof(double));
  for (int i = 0; i < kCount; ++i) {
    values[i] = rank + i % 7;
  }
  MPI_Allreduce(MPI_IN_PLACE, values, kCount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) {
    wrong += values[i] != (double)size * (size - 1) / 2 + (double)size * (i % 7);
  }
  if (rank == 0) {
    for (int i = 0; i < kCount; ++i) {
      values[i] = i;
    }
  }
  MPI_Bcast(values, kCount, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < kCount; ++i) {
    wrong += values[i] != (double)i;
  }
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("allreduce and bcast of %d doubles over %d ranks: %d wrong\n", kCount, size, wrong);
  }
  free(values);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
