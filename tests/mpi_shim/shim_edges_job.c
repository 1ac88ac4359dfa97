/* The MPI shim's edges, in a plain MPI program:
 *   shim_edges_job pt2pt   never calls a collective: point-to-point around
 *                          a ring, then MPI_Finalize (exit 0 when right).
 *   shim_edges_job abort   the last rank calls MPI_Abort(3) while the others
 *                          wait in a large MPI_Allreduce it never joins: the
 *                          launcher must end every rank.
 *   shim_edges_job mismatch
 *                          with MPI_ERRORS_RETURN, rank 0 gives a large
 *                          MPI_Allreduce one element more than the others:
 *                          every rank must get an error code back (run with
 *                          RAILYARD_TIMEOUT set), whose text MPI_Error_string
 *                          gives (exit 0 when all did).
 *   shim_edges_job timeout with MPI_ERRORS_RETURN, the last rank sits out
 *                          a large MPI_Allreduce: the others' error strings
 *                          (run with RAILYARD_TIMEOUT set) must say what the
 *                          collective was waiting for, naming that rank
 *                          (exit 0 when they do).
 *   shim_edges_job progress
 *                          non-blocking collectives completed only by MPI's
 *                          own progress: an MPI_Iallreduce waited for with
 *                          PMPI_Wait (which no wrapper sees, as from
 *                          Fortran) after point-to-point traffic, an
 *                          MPI_Ibcast tested with PMPI_Test (exit 0 when
 *                          both are right).
 *   shim_edges_job handover
 *                          the last rank broadcasts 1 MiB 32 times in a row
 *                          (railyard's bcast: the root returns once its
 *                          data is copied out), then every rank waits in
 *                          an MPI_Allreduce MPI carries: with
 *                          RAILYARD_BACKGROUND_PROGRESS=0 only MPI's
 *                          progress engine moves the root's data on (exit
 *                          0 when every rank got every byte). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    enum { kCount = 1 << 20 };
    int* data = calloc(kCount, sizeof(int));
    if (rank == size - 1) {
      sleep(1);
      fprintf(stderr, "rank %d: calling MPI_Abort\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Allreduce(MPI_IN_PLACE, data, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    fprintf(stderr, "rank %d: FAILED: the allreduce finished without the aborted rank\n", rank);
    free(data);
    MPI_Finalize();
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "mismatch") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    enum { kCount = 100000 };
    int* data = calloc(kCount + 1, sizeof(int));
    const int rc =
        MPI_Allreduce(MPI_IN_PLACE, data, kCount + (rank == 0), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    fprintf(stderr, "rank %d: MPI_Allreduce returned %d: %s\n", rank, rc, text);
    free(data);
    int failed = rc != MPI_SUCCESS;
    int all_failed = 0;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("every rank got an error: %s\n", all_failed ? "yes" : "no");
    }
    MPI_Finalize();
    return all_failed ? 0 : 1;
  }
  if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    enum { kCount = 1 << 18 };
    int* data = calloc(kCount, sizeof(int));
    int ok = 1;
    if (rank == size - 1) {
      sleep(4); /* past the others' RAILYARD_TIMEOUT */
    } else {
      const int rc = MPI_Allreduce(MPI_IN_PLACE, data, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(rc, text, &length);
      char last[32];
      snprintf(last, sizeof(last), "rank %d", size - 1);
      fprintf(stderr, "rank %d: MPI_Allreduce returned %d: %s\n", rank, rc, text);
      ok = rc != MPI_SUCCESS && strstr(text, "did not finish within") != NULL &&
           strstr(text, "at its exchange") != NULL && (rank != 0 || strstr(text, last) != NULL);
    }
    free(data);
    if (rank == 0) {
      printf("the timeouts named whom they waited for: %s\n", ok ? "yes" : "no");
    }
    MPI_Finalize();
    return ok ? 0 : 1;
  }
  if (argc > 1 && strcmp(argv[1], "progress") == 0) {
    enum { kCount = 1 << 16 };
    int* data = malloc(kCount * sizeof(int));
    int* sum = malloc(kCount * sizeof(int));
    for (int i = 0; i < kCount; ++i) {
      data[i] = rank * 3 + i % 7;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(data, sum, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    int token = rank;
    int from = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 7, &from, 1, MPI_INT,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    PMPI_Wait(&request, MPI_STATUS_IGNORE);
    int wrong = request != MPI_REQUEST_NULL || from != (rank + size - 1) % size;
    for (int i = 0; i < kCount; ++i) {
      wrong += sum[i] != 3 * size * (size - 1) / 2 + size * (i % 7);
    }
    for (int i = 0; i < kCount; ++i) {
      data[i] = rank == size - 1 ? i * 5 : -1;
    }
    MPI_Ibcast(data, kCount, MPI_INT, size - 1, MPI_COMM_WORLD, &request);
    int done = 0;
    while (!done) {
      PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < kCount; ++i) {
      wrong += data[i] != i * 5;
    }
    int all_wrong = 0;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("progress: %d wrong over %d ranks\n", all_wrong, size);
    }
    free(data);
    free(sum);
    MPI_Finalize();
    return all_wrong == 0 ? 0 : 1;
  }
  if (argc > 1 && strcmp(argv[1], "handover") == 0) {
    enum { kCount = 1 << 18, kRounds = 32 };
    int* data = malloc(kCount * sizeof(int));
    int wrong = 0;
    for (int round = 0; round < kRounds; ++round) {
      for (int i = 0; i < kCount; ++i) {
        data[i] = rank == size - 1 ? round * 7 + i : -1;
      }
      MPI_Bcast(data, kCount, MPI_INT, size - 1, MPI_COMM_WORLD);
      for (int i = 0; i < kCount; ++i) {
        wrong += data[i] != round * 7 + i;
      }
    }
    int all_wrong = 0;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("handover: %d wrong over %d ranks\n", all_wrong, size);
    }
    free(data);
    MPI_Finalize();
    return all_wrong == 0 ? 0 : 1;
  }
  int token = rank == 0 ? 1 : 0;
  if (rank == 0) {
    MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("token %d after %d ranks\n", token, size);
  } else {
    MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++token;
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return rank == 0 && token != size ? 1 : 0;
}
