/* An unmodified MPI program as users write them (C, MPI only): every
 * collective the railyard MPI shim intercepts, on MPI_COMM_WORLD and on
 * communicators made from it, with results checked against a serial
 * reference computed here (integers exactly; floating-point sums bitwise
 * equal on every rank), plus the calls the shim must hand back to MPI
 * (a derived datatype with gaps, a user operation, MPI_COMM_SELF, MINLOC).
 * It knows nothing of the shim: ctest runs it with and without
 * (tests/mpi_shim/run_shim_job.sh) and compares the integer digest it
 * prints on stdout. Exit status 0 when every check passed. */
#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int world_rank = 0;
static uint64_t digest = 1469598103934665603ULL; /* FNV-1a over every integer result */

#define CHECK(condition, ...)                                            \
  do {                                                                   \
    if (!(condition)) {                                                  \
      ++failures;                                                        \
      if (failures <= 20) {                                              \
        fprintf(stderr, "rank %d: FAILED %s: ", world_rank, #condition); \
        fprintf(stderr, __VA_ARGS__);                                    \
        fprintf(stderr, "\n");                                           \
      }                                                                  \
    }                                                                    \
  } while (0)

static void mix(const void* data, size_t bytes) {
  const unsigned char* p = (const unsigned char*)data;
  for (size_t i = 0; i < bytes; ++i) {
    digest = (digest ^ p[i]) * 1099511628211ULL;
  }
}

/* Each rank's input element i: small, so products and sums never overflow. */
static int32_t value_of(int rank, size_t i) {
  return (int32_t)((rank * 7 + (int)(i % 13)) % 11) - 3;
}

static void* checked_malloc(size_t bytes) {
  void* p = malloc(bytes == 0 ? 1 : bytes);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

static void check_allreduce_int(MPI_Comm comm, size_t count, int in_place) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int32_t* in = checked_malloc(count * sizeof(int32_t));
  int32_t* out = checked_malloc(count * sizeof(int32_t));
  const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR, MPI_PROD};
  for (int o = 0; o < 5; ++o) {
    for (size_t i = 0; i < count; ++i) {
      in[i] = value_of(rank, i) | (ops[o] == MPI_PROD ? 1 : 0);
      out[i] = in[i];
    }
    int rc =
        MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)count, MPI_INT32_T, ops[o], comm);
    CHECK(rc == MPI_SUCCESS, "MPI_Allreduce returned %d", rc);
    for (size_t i = 0; i < count; ++i) {
      int32_t expected = value_of(0, i) | (ops[o] == MPI_PROD ? 1 : 0);
      for (int r = 1; r < size; ++r) {
        int32_t v = value_of(r, i) | (ops[o] == MPI_PROD ? 1 : 0);
        if (ops[o] == MPI_SUM) {
          expected += v;
        }
        if (ops[o] == MPI_MAX) {
          expected = v > expected ? v : expected;
        }
        if (ops[o] == MPI_MIN) {
          expected = v < expected ? v : expected;
        }
        if (ops[o] == MPI_BXOR) {
          expected ^= v;
        }
        if (ops[o] == MPI_PROD) {
          expected = (int32_t)((uint32_t)expected * (uint32_t)v);
        }
      }
      if (out[i] != expected) {
        CHECK(out[i] == expected, "allreduce op %d count %zu in_place %d at %zu: %d, expected %d",
              o, count, in_place, i, out[i], expected);
        break;
      }
    }
    mix(out, count * sizeof(int32_t));
  }
  free(in);
  free(out);
}

/* Doubles summed in different orders differ in the last bits: the check is
 * that every rank got the same bits and that they are close to the sum. */
static void check_allreduce_double(MPI_Comm comm, size_t count) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double* in = checked_malloc(count * sizeof(double));
  double* out = checked_malloc(count * sizeof(double));
  for (size_t i = 0; i < count; ++i) {
    in[i] = 1.0 / (double)(rank + 3) + (double)(i % 17) * 0.1;
  }
  CHECK(MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS, "double");
  double* root_copy = checked_malloc(count * sizeof(double));
  memcpy(root_copy, out, count * sizeof(double));
  /* Rank 0's bits to everyone, through MPI's own bcast of bytes below the
   * shim's threshold or the shim's: either way plain bytes. */
  MPI_Bcast(root_copy, (int)(count * sizeof(double)), MPI_BYTE, 0, comm);
  CHECK(memcmp(root_copy, out, count * sizeof(double)) == 0,
        "double sums differ between ranks (count %zu)", count);
  for (size_t i = 0; i < count; ++i) {
    double expected = 0;
    for (int r = 0; r < size; ++r) {
      expected += 1.0 / (double)(r + 3) + (double)(i % 17) * 0.1;
    }
    double error = out[i] - expected;
    if (error < -1e-9 || error > 1e-9) {
      CHECK(0, "double sum at %zu: %.17g, expected %.17g", i, out[i], expected);
      break;
    }
  }
  free(root_copy);
  free(in);
  free(out);
}

static void check_reduce_bcast(MPI_Comm comm, size_t count) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = size - 1;
  int64_t* in = checked_malloc(count * sizeof(int64_t));
  int64_t* out = checked_malloc(count * sizeof(int64_t));
  for (size_t i = 0; i < count; ++i) {
    in[i] = out[i] = (int64_t)value_of(rank, i) * ((int64_t)1 << 33);
  }
  CHECK(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, rank == root ? out : NULL, (int)count,
                   MPI_LONG_LONG, MPI_SUM, root, comm) == MPI_SUCCESS,
        "reduce");
  /* The root's result to all, as doubles' bytes are: MPI_INT64_T here. */
  CHECK(MPI_Bcast(out, (int)count, MPI_INT64_T, root, comm) == MPI_SUCCESS, "bcast");
  for (size_t i = 0; i < count; ++i) {
    int64_t expected = 0;
    for (int r = 0; r < size; ++r) {
      expected += (int64_t)value_of(r, i) * ((int64_t)1 << 33);
    }
    if (out[i] != expected) {
      CHECK(out[i] == expected, "reduce+bcast at %zu of %zu: %lld, expected %lld", i, count,
            (long long)out[i], (long long)expected);
      break;
    }
  }
  mix(out, count * sizeof(int64_t));
  free(in);
  free(out);
}

static void check_allgather_alltoall(MPI_Comm comm, size_t count, int in_place) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t all = count * (size_t)size;
  int32_t* in = checked_malloc(all * sizeof(int32_t));
  int32_t* out = checked_malloc(all * sizeof(int32_t));
  for (size_t i = 0; i < count; ++i) {
    in[i] = value_of(rank, i) * 1000 + rank;
  }
  if (in_place) {
    memcpy(out + (size_t)rank * count, in, count * sizeof(int32_t));
  }
  CHECK(MPI_Allgather(in_place ? MPI_IN_PLACE : in, (int)count, MPI_INT, out, (int)count, MPI_INT,
                      comm) == MPI_SUCCESS,
        "allgather");
  for (int r = 0; r < size; ++r) {
    for (size_t i = 0; i < count; ++i) {
      int32_t expected = value_of(r, i) * 1000 + r;
      if (out[(size_t)r * count + i] != expected) {
        CHECK(0, "allgather block %d at %zu (count %zu): %d, expected %d", r, i, count,
              out[(size_t)r * count + i], expected);
        r = size;
        break;
      }
    }
  }
  mix(out, all * sizeof(int32_t));
  /* Block d of this rank's send goes to rank d. */
  for (int d = 0; d < size; ++d) {
    for (size_t i = 0; i < count; ++i) {
      in[(size_t)d * count + i] = rank * 100000 + d * 1000 + (int32_t)(i % 997);
    }
  }
  if (in_place) {
    memcpy(out, in, all * sizeof(int32_t));
  }
  CHECK(MPI_Alltoall(in_place ? MPI_IN_PLACE : in, (int)count, MPI_INT32_T, out, (int)count,
                     MPI_INT32_T, comm) == MPI_SUCCESS,
        "alltoall");
  for (int s = 0; s < size; ++s) {
    for (size_t i = 0; i < count; ++i) {
      int32_t expected = s * 100000 + rank * 1000 + (int32_t)(i % 997);
      if (out[(size_t)s * count + i] != expected) {
        CHECK(0, "alltoall block from %d at %zu: %d, expected %d", s, i, out[(size_t)s * count + i],
              expected);
        s = size;
        break;
      }
    }
  }
  mix(out, all * sizeof(int32_t));
  free(in);
  free(out);
}

static void check_reduce_scatter(MPI_Comm comm, size_t count, int in_place) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t all = count * (size_t)size;
  uint16_t* in = checked_malloc(all * sizeof(uint16_t));
  uint16_t* out = checked_malloc(all * sizeof(uint16_t));
  for (size_t i = 0; i < all; ++i) {
    in[i] = out[i] = (uint16_t)(value_of(rank, i) + 3 + rank);
  }
  CHECK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, (int)count, MPI_UNSIGNED_SHORT,
                                 MPI_SUM, comm) == MPI_SUCCESS,
        "reduce_scatter_block");
  for (size_t i = 0; i < count; ++i) {
    size_t at = (size_t)rank * count + i;
    uint16_t expected = 0;
    for (int r = 0; r < size; ++r) {
      expected = (uint16_t)(expected + value_of(r, at) + 3 + r);
    }
    if (out[i] != expected) {
      CHECK(0, "reduce_scatter_block at %zu: %u, expected %u", i, out[i], expected);
      break;
    }
  }
  mix(out, count * sizeof(uint16_t));
  free(in);
  free(out);
}

/* clang's MPI checker knows neither MPI_Ireduce_scatter_block nor
 * MPI_Ibarrier, so it takes their requests for ones never started. */
/* NOLINTBEGIN(clang-analyzer-optin.mpi.MPI-Checker) */
/* Every non-blocking form at once, with point-to-point traffic around a
 * ring in the same request arrays, completed four ways: Waitall, a Testall
 * loop, Waitany and Waitsome. */
/* Gather and scatter, each at a root of its own, and the v-forms with a
 * different count for every rank (and gaps between the blocks of
 * allgatherv). */
static void check_rooted_and_vector(MPI_Comm comm, size_t count, int in_place) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t ranks = (size_t)size;
  const size_t most = count + 8 * ranks;
  int32_t* in = checked_malloc(most * ranks * sizeof(int32_t));
  int32_t* out = checked_malloc((most + 2) * ranks * sizeof(int32_t));
  int* counts = checked_malloc(ranks * sizeof(int));
  int* displs = checked_malloc(ranks * sizeof(int));
  int* send_counts = checked_malloc(ranks * sizeof(int));
  int* send_displs = checked_malloc(ranks * sizeof(int));

  /* Gather into the last rank. */
  const int gather_root = size - 1;
  for (size_t i = 0; i < count; ++i) {
    in[i] = value_of(rank, i) * 1000 + rank;
  }
  if (in_place && rank == gather_root) {
    memcpy(out + (size_t)rank * count, in, count * sizeof(int32_t));
  }
  CHECK(MPI_Gather(in_place && rank == gather_root ? MPI_IN_PLACE : in, (int)count, MPI_INT, out,
                   (int)count, MPI_INT, gather_root, comm) == MPI_SUCCESS,
        "gather");
  if (rank == gather_root) {
    for (size_t j = 0; j < count * ranks; ++j) {
      const int from = (int)(j / (count == 0 ? 1 : count));
      const int32_t expected = value_of(from, j % count) * 1000 + from;
      if (out[j] != expected) {
        CHECK(0, "gather element %zu (count %zu): %d, expected %d", j, count, out[j], expected);
        break;
      }
    }
    mix(out, count * ranks * sizeof(int32_t));
  }

  /* Scatter from rank 0: block r of its vector to rank r. */
  if (rank == 0) {
    for (size_t j = 0; j < count * ranks; ++j) {
      in[j] = (int32_t)(j % 100003) - 7;
    }
  }
  const int scatter_in_place = in_place && rank == 0;
  CHECK(MPI_Scatter(in, (int)count, MPI_INT, scatter_in_place ? MPI_IN_PLACE : out, (int)count,
                    MPI_INT, 0, comm) == MPI_SUCCESS,
        "scatter");
  const int32_t* scattered = scatter_in_place ? in : out;
  for (size_t i = 0; i < count; ++i) {
    const int32_t expected = (int32_t)(((size_t)rank * count + i) % 100003) - 7;
    if (scattered[i] != expected) {
      CHECK(0, "scatter element %zu (count %zu): %d, expected %d", i, count, scattered[i],
            expected);
      break;
    }
  }
  mix(scattered, count * sizeof(int32_t));

  /* Allgatherv: rank r gives count + 3r elements, its block 2 elements past
   * the previous one's end. */
  int at = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = (int)count + 3 * r;
    displs[r] = at;
    at += counts[r] + 2;
  }
  for (int i = 0; i < counts[rank]; ++i) {
    in[i] = rank * 100000 + i % 9973;
  }
  memset(out, 0, (size_t)at * sizeof(int32_t));
  if (in_place) {
    memcpy(out + displs[rank], in, (size_t)counts[rank] * sizeof(int32_t));
  }
  CHECK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : in, counts[rank], MPI_INT, out, counts, displs,
                       MPI_INT, comm) == MPI_SUCCESS,
        "allgatherv");
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < counts[r]; ++i) {
      if (out[displs[r] + i] != r * 100000 + i % 9973) {
        CHECK(0, "allgatherv block %d at %d: %d", r, i, out[displs[r] + i]);
        r = size;
        break;
      }
    }
  }
  for (int r = 0; r < size; ++r) {
    CHECK(out[displs[r] + counts[r]] == 0 && out[displs[r] + counts[r] + 1] == 0,
          "allgatherv wrote into the gap after block %d", r);
  }
  mix(out, (size_t)at * sizeof(int32_t));

  /* Alltoallv: rank s sends count + (s + d) % 5 elements to rank d. */
  int send_at = 0;
  int recv_at = 0;
  for (int d = 0; d < size; ++d) {
    send_counts[d] = (int)count + (rank + d) % 5;
    send_displs[d] = send_at;
    send_at += send_counts[d];
    counts[d] = (int)count + (d + rank) % 5;
    displs[d] = recv_at;
    recv_at += counts[d];
  }
  for (int d = 0; d < size; ++d) {
    for (int i = 0; i < send_counts[d]; ++i) {
      in[send_displs[d] + i] = rank * 1000000 + d * 1000 + i % 997;
    }
  }
  CHECK(MPI_Alltoallv(in, send_counts, send_displs, MPI_INT, out, counts, displs, MPI_INT, comm) ==
            MPI_SUCCESS,
        "alltoallv");
  for (int s = 0; s < size; ++s) {
    for (int i = 0; i < counts[s]; ++i) {
      if (out[displs[s] + i] != s * 1000000 + rank * 1000 + i % 997) {
        CHECK(0, "alltoallv block from %d at %d: %d", s, i, out[displs[s] + i]);
        s = size;
        break;
      }
    }
  }
  mix(out, (size_t)recv_at * sizeof(int32_t));

  /* Reduce_scatter: rank r gets count + r elements of the sum. */
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = (int)count + r;
    total += counts[r];
  }
  for (int j = 0; j < total; ++j) {
    in[j] = value_of(rank, (size_t)j);
  }
  int first = 0;
  for (int r = 0; r < rank; ++r) {
    first += counts[r];
  }
  if (in_place) {
    memcpy(out, in, (size_t)total * sizeof(int32_t));
  }
  CHECK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_INT, MPI_SUM, comm) ==
            MPI_SUCCESS,
        "reduce_scatter");
  for (int i = 0; i < counts[rank]; ++i) {
    int32_t expected = 0;
    for (int r = 0; r < size; ++r) {
      expected += value_of(r, (size_t)first + (size_t)i);
    }
    if (out[i] != expected) {
      CHECK(0, "reduce_scatter element %d (count %d): %d, expected %d", i, counts[rank], out[i],
            expected);
      break;
    }
  }
  mix(out, (size_t)counts[rank] * sizeof(int32_t));

  free(send_displs);
  free(send_counts);
  free(displs);
  free(counts);
  free(out);
  free(in);
}

static void check_nonblocking(MPI_Comm comm, size_t count, int style) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t all = count * (size_t)size;
  int32_t* sum = checked_malloc(count * sizeof(int32_t));
  int32_t* reduced = checked_malloc(count * sizeof(int32_t));
  int32_t* gathered = checked_malloc(all * sizeof(int32_t));
  int32_t* to_all = checked_malloc(all * sizeof(int32_t));
  int32_t* from_all = checked_malloc(all * sizeof(int32_t));
  int32_t* scattered = checked_malloc(count * sizeof(int32_t));
  int32_t* broadcast = checked_malloc(count * sizeof(int32_t));
  int32_t* ring_out = checked_malloc(count * sizeof(int32_t));
  int32_t* ring_in = checked_malloc(count * sizeof(int32_t));
  for (size_t i = 0; i < count; ++i) {
    sum[i] = value_of(rank, i);
    broadcast[i] = rank == 0 ? value_of(size, i) : -1;
    ring_out[i] = rank * 3 + (int32_t)(i % 5);
  }
  for (size_t i = 0; i < all; ++i) {
    to_all[i] = rank * 7 + (int32_t)(i % 101);
  }
  MPI_Request requests[10];
  int n = 0;
  MPI_Irecv(ring_in, (int)count, MPI_INT, (rank + size - 1) % size, 5, comm, &requests[n++]);
  MPI_Iallreduce(MPI_IN_PLACE, sum, (int)count, MPI_INT, MPI_SUM, comm, &requests[n++]);
  MPI_Ibcast(broadcast, (int)count, MPI_INT, 0, comm, &requests[n++]);
  MPI_Isend(ring_out, (int)count, MPI_INT, (rank + 1) % size, 5, comm, &requests[n++]);
  MPI_Iallgather(ring_out, (int)count, MPI_INT, gathered, (int)count, MPI_INT, comm,
                 &requests[n++]);
  MPI_Ialltoall(to_all, (int)count, MPI_INT, from_all, (int)count, MPI_INT, comm, &requests[n++]);
  MPI_Ireduce_scatter_block(to_all, scattered, (int)count, MPI_INT, MPI_MAX, comm, &requests[n++]);
  MPI_Ireduce(ring_out, rank == size - 1 ? reduced : NULL, (int)count, MPI_INT, MPI_MIN, size - 1,
              comm, &requests[n++]);
  MPI_Ibarrier(comm, &requests[n++]);
  MPI_Status statuses[10];
  if (style == 0) {
    CHECK(MPI_Waitall(n, requests, statuses) == MPI_SUCCESS, "waitall");
  } else if (style == 1) {
    int flag = 0;
    while (!flag) {
      CHECK(MPI_Testall(n, requests, &flag, statuses) == MPI_SUCCESS, "testall");
    }
  } else if (style == 2) {
    for (int done = 0; done < n; ++done) {
      int index = -1;
      CHECK(MPI_Waitany(n, requests, &index, &statuses[0]) == MPI_SUCCESS, "waitany");
      CHECK(index >= 0 && index < n && requests[index] == MPI_REQUEST_NULL, "waitany index %d",
            index);
    }
    int index = 0;
    CHECK(MPI_Waitany(n, requests, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              index == MPI_UNDEFINED,
          "waitany with none active: index %d", index);
  } else {
    int done = 0;
    while (done < n) {
      int outcount = 0;
      int indices[10];
      CHECK(MPI_Waitsome(n, requests, &outcount, indices, statuses) == MPI_SUCCESS, "waitsome");
      CHECK(outcount > 0, "waitsome completed %d", outcount);
      if (outcount <= 0) {
        break;
      }
      done += outcount;
    }
  }
  for (int i = 0; i < n; ++i) {
    CHECK(requests[i] == MPI_REQUEST_NULL, "request %d still active", i);
  }
  int errors = 0;
  for (size_t i = 0; i < count && errors == 0; ++i) {
    int32_t expected_sum = 0;
    int32_t expected_min = value_of(0, i);
    int32_t expected_max = 0;
    for (int r = 0; r < size; ++r) {
      expected_sum += value_of(r, i);
    }
    for (int r = 0; r < size; ++r) {
      int32_t v = r * 3 + (int32_t)(i % 5);
      expected_min = r == 0 || v < expected_min ? v : expected_min;
      int32_t w = r * 7 + (int32_t)(((size_t)rank * count + i) % 101);
      expected_max = r == 0 || w > expected_max ? w : expected_max;
    }
    int left = (rank + size - 1) % size;
    errors += sum[i] != expected_sum;
    errors += broadcast[i] != value_of(size, i);
    errors += ring_in[i] != left * 3 + (int32_t)(i % 5);
    errors += scattered[i] != expected_max;
    errors += rank == size - 1 && reduced[i] != expected_min;
    for (int r = 0; r < size; ++r) {
      errors += gathered[(size_t)r * count + i] != r * 3 + (int32_t)(i % 5);
      errors +=
          from_all[(size_t)r * count + i] != r * 7 + (int32_t)(((size_t)rank * count + i) % 101);
    }
    CHECK(errors == 0, "non-blocking results wrong at %zu of %zu (style %d)", i, count, style);
  }
  mix(sum, count * sizeof(int32_t));
  mix(gathered, all * sizeof(int32_t));
  free(sum);
  free(reduced);
  free(gathered);
  free(to_all);
  free(from_all);
  free(scattered);
  free(broadcast);
  free(ring_out);
  free(ring_in);
}

/* NOLINTEND(clang-analyzer-optin.mpi.MPI-Checker) */

static void all_collectives(MPI_Comm comm) {
  const size_t counts[] = {0, 1, 7, 1027, 70000, 300001};
  for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
    check_allreduce_int(comm, counts[c], 0);
    check_allreduce_int(comm, counts[c], 1);
    check_allreduce_double(comm, counts[c]);
    check_reduce_bcast(comm, counts[c]);
    check_allgather_alltoall(comm, counts[c] / 8, (int)(c % 2));
    check_reduce_scatter(comm, counts[c] / 4, (int)(c % 2));
    check_rooted_and_vector(comm, counts[c] / 8, (int)(c % 2));
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "barrier");
    check_nonblocking(comm, counts[c] / 16, (int)(c % 4));
  }
}

static void user_sum(void* in, void* inout, int* len, /* NOLINT(readability-non-const-parameter) */
                     MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    ((int*)inout)[i] += ((int*)in)[i];
  }
}

/* Calls the shim must leave to MPI; their results are checked all the same. */
static void handed_back(void) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { kCount = 40000 };
  int* in = checked_malloc(kCount * sizeof(int));
  int* out = checked_malloc(kCount * sizeof(int));
  for (int i = 0; i < kCount; ++i) {
    in[i] = rank + i;
  }
  MPI_Op op = NULL;
  MPI_Op_create(user_sum, 1, &op);
  CHECK(MPI_Allreduce(in, out, kCount, MPI_INT, op, MPI_COMM_WORLD) == MPI_SUCCESS, "user op");
  for (int i = 0; i < kCount; ++i) {
    if (out[i] != size * i + size * (size - 1) / 2) {
      CHECK(0, "user op at %d: %d", i, out[i]);
      break;
    }
  }
  MPI_Op_free(&op);
  /* Every other int: a datatype with gaps. */
  MPI_Datatype strided = NULL;
  MPI_Type_vector(kCount / 2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  for (int i = 0; i < kCount; ++i) {
    out[i] = rank == 0 ? i : -1;
  }
  CHECK(MPI_Bcast(out, 1, strided, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "strided bcast");
  for (int i = 0; i < kCount; ++i) {
    int expected = (i % 2 == 0 || rank == 0) ? i : -1;
    if (out[i] != expected) {
      CHECK(0, "strided bcast at %d: %d, expected %d", i, out[i], expected);
      break;
    }
  }
  MPI_Type_free(&strided);
  CHECK(MPI_Allreduce(in, out, kCount, MPI_INT, MPI_SUM, MPI_COMM_SELF) == MPI_SUCCESS, "self");
  CHECK(memcmp(in, out, kCount * sizeof(int)) == 0, "MPI_COMM_SELF allreduce changed the data");
  struct value_rank {
    int value;
    int rank;
  };
  struct value_rank mine = {rank % 2 == 0 ? rank : -rank, rank};
  struct value_rank lowest = {0, -1};
  CHECK(MPI_Allreduce(&mine, &lowest, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS,
        "minloc");
  CHECK(lowest.rank == ((size - 1) % 2 == 1 ? size - 1 : (size > 2 ? size - 2 : 0)),
        "minloc rank %d", lowest.rank);
  mix(out, sizeof(int));
  free(in);
  free(out);
}

/* The threads of this process now. */
static int thread_count(void) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == NULL) {
    return -1;
  }
  int count = 0;
  for (struct dirent* entry = readdir(tasks); entry != NULL; entry = readdir(tasks)) {
    count += entry->d_name[0] != '.';
  }
  closedir(tasks);
  return count;
}

int main(int argc, char** argv) {
  const int threads_before = thread_count();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  all_collectives(MPI_COMM_WORLD);
  MPI_Comm twin = NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &twin);
  all_collectives(twin);
  /* Odd and even ranks, reversed. */
  MPI_Comm half = NULL;
  MPI_Comm_split(twin, world_rank % 2, -world_rank, &half);
  all_collectives(half);
  MPI_Comm_free(&half);
  MPI_Comm_free(&twin);
  MPI_Comm node = NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  check_allreduce_int(node, 70000, 0);
  MPI_Comm_free(&node);
  handed_back();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  /* Every rank's digest, in rank order, on rank 0's stdout. */
  uint64_t* digests = checked_malloc((size_t)size * sizeof(uint64_t));
  MPI_Gather(&digest, 1, MPI_UINT64_T, digests, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    for (int r = 0; r < size; ++r) {
      printf("digest rank %d %016llx\n", r, (unsigned long long)digests[r]);
    }
    printf("failures %d\n", total);
  }
  free(digests);
  MPI_Finalize();
  /* Whatever MPI_Init started (MPI's threads, the shim's) ends in MPI_Finalize. */
  const int threads_after = thread_count();
  if (threads_after != threads_before) {
    fprintf(stderr, "rank %d: FAILED: %d threads before MPI_Init, %d after MPI_Finalize\n",
            world_rank, threads_before, threads_after);
    return 1;
  }
  return total == 0 ? 0 : 1;
}
