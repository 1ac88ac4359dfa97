/* railyard's C API in a C program: the job's world from the environment
 * (run it under railyard-run, mpirun or srun), an allreduce of floats at a
 * few sizes, in place and not, checked against the sum every rank can work
 * out, and the time of each on rank 0's stdout. Exit status 0 when every
 * result is right.
 *   railyard-run -n 4 railyard-c-allreduce */
#include <railyard/c_api/railyard.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Prints the failure of `what` and returns 1 when `result` is one. */
static int failed(railyard_result_t result, const char* what) {
  if (result == RAILYARD_SUCCESS) {
    return 0;
  }
  fprintf(stderr, "%s failed: %s (%s)\n", what, railyard_strerror(result), railyard_last_error());
  return 1;
}

int main(void) {
  railyard_comm_t comm = NULL;
  if (failed(railyard_comm_init(&comm), "railyard_comm_init")) {
    return 1;
  }
  int rank = 0;
  int size = 0;
  railyard_comm_rank(comm, &rank);
  railyard_comm_size(comm, &size);
  int wrong = 0;
  for (size_t count = 1; count <= (size_t)1 << 20 && !wrong; count *= 32) {
    float* data = malloc(count * sizeof(float));
    float* sums = malloc(count * sizeof(float));
    if (data == NULL || sums == NULL) {
      free(data);
      free(sums);
      railyard_comm_destroy(comm);
      return 1;
    }
    for (size_t i = 0; i < count; ++i) {
      data[i] = (float)(rank + 1) * (float)(i % 7);
    }
    double start = now_seconds();
    wrong |= failed(railyard_allreduce(data, sums, count, RAILYARD_FLOAT32, RAILYARD_SUM, comm),
                    "railyard_allreduce");
    double took = now_seconds() - start;
    wrong |= failed(
        railyard_allreduce(RAILYARD_IN_PLACE, data, count, RAILYARD_FLOAT32, RAILYARD_SUM, comm),
        "railyard_allreduce in place");
    /* Small integers in floats: the sums are exact in any order. */
    const float ranks_sum = (float)size * (float)(size + 1) / 2.0f;
    for (size_t i = 0; i < count && !wrong; ++i) {
      const float expected = ranks_sum * (float)(i % 7);
      if (sums[i] != expected || data[i] != expected) {
        fprintf(stderr, "rank %d: element %zu of %zu is %g (in place %g), expected %g\n", rank, i,
                count, sums[i], data[i], expected);
        wrong = 1;
      }
    }
    if (rank == 0 && !wrong) {
      printf("allreduce of %8zu floats over %d ranks: %9.1f us, right\n", count, size, took * 1e6);
    }
    free(data);
    free(sums);
  }
  /* Every rank learns whether any rank saw a wrong sum. */
  int any_wrong = 0;
  if (failed(railyard_allreduce(&wrong, &any_wrong, 1, RAILYARD_INT32, RAILYARD_MAX, comm),
             "railyard_allreduce of the verdict")) {
    any_wrong = 1;
  }
  railyard_comm_destroy(comm);
  return any_wrong ? 1 : 0;
}
