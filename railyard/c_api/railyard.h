/* railyard's C API (C99): communicators over all of a node's NICs, their
 * collectives and point-to-point messages, for software that links a
 * collective backend through a C ABI, as it links NCCL or UCC.
 *
 * Every function returns a railyard_result_t; RAILYARD_SUCCESS is 0. On
 * failure, railyard_last_error() gives this thread's message for the last
 * failed call (it names the ranks, the input or the call that failed), and
 * railyard_strerror() the result's generic text. No function aborts the
 * process or writes to stdout. docs/c-api.md. */
#ifndef RAILYARD_C_API_RAILYARD_H
#define RAILYARD_C_API_RAILYARD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum railyard_result {
  RAILYARD_SUCCESS = 0,
  RAILYARD_INVALID_ARGUMENT = 1, /* a null pointer, a rank, type or operation out of range */
  RAILYARD_CONFIG_ERROR = 2,     /* an environment variable or an id that cannot be used */
  RAILYARD_USAGE_ERROR = 3,      /* ranks that disagree, a message longer than its buffer */
  RAILYARD_REMOTE_ERROR = 4,     /* a rank failed or could not be reached */
  RAILYARD_ABORTED = 5,          /* a rank aborted the job */
  RAILYARD_TIMEOUT = 6,          /* RAILYARD_TIMEOUT (or the bootstrap's) passed */
  RAILYARD_SYSTEM_ERROR = 7,     /* a libfabric or operating-system call failed */
  RAILYARD_INTERNAL_ERROR = 8    /* anything else: a bug, please report it */
} railyard_result_t;

/* The generic text of a result ("invalid argument", ...). Never NULL. */
const char* railyard_strerror(railyard_result_t result);
/* This thread's message for its last failed call, "" when none failed.
 * Valid until this thread's next railyard call. */
const char* railyard_last_error(void);

/* The library's version, e.g. 0, 1, 0. Any argument may be NULL. */
railyard_result_t railyard_version(int* major, int* minor, int* patch);

typedef enum railyard_datatype {
  RAILYARD_INT8 = 0,
  RAILYARD_INT16 = 1,
  RAILYARD_INT32 = 2,
  RAILYARD_INT64 = 3,
  RAILYARD_UINT8 = 4,
  RAILYARD_UINT16 = 5,
  RAILYARD_UINT32 = 6,
  RAILYARD_UINT64 = 7,
  RAILYARD_FLOAT16 = 8,  /* IEEE 754 binary16 */
  RAILYARD_BFLOAT16 = 9, /* the upper half of a binary32 */
  RAILYARD_FLOAT32 = 10,
  RAILYARD_FLOAT64 = 11
} railyard_datatype_t;

typedef enum railyard_op {
  RAILYARD_SUM = 0,
  RAILYARD_PROD = 1,
  RAILYARD_MIN = 2,
  RAILYARD_MAX = 3,
  RAILYARD_BAND = 4, /* bitwise operations take integer types only */
  RAILYARD_BOR = 5,
  RAILYARD_BXOR = 6
} railyard_op_t;

/* As `send` of a collective: the input is already in the receive buffer
 * (MPI_IN_PLACE; see each collective). */
#define RAILYARD_IN_PLACE (railyard_in_place())
const void* railyard_in_place(void);

/* A receive's source or tag that matches any. */
#define RAILYARD_ANY_SOURCE (-1)
#define RAILYARD_ANY_TAG (-1)
/* railyard_comm_split's color of a rank that joins no new communicator. */
#define RAILYARD_UNDEFINED (-1)

typedef struct railyard_comm* railyard_comm_t;
typedef struct railyard_request* railyard_request_t;

/* What a finished receive got: its sender's rank, its tag, its length. */
typedef struct railyard_status {
  int source;
  int tag;
  size_t bytes;
} railyard_status_t;

/* ---- Making communicators ---- */

/* Collective over every rank of the job: the world of the job this process
 * was started in (railyard-run, mpirun or srun with PMIx, or a job of one
 * rank), from the environment (docs/running.md). */
railyard_result_t railyard_comm_init(railyard_comm_t* comm);

/* For launchers of their own: one rank makes an id, the job passes it to
 * every rank (by any means), and each calls railyard_comm_init_rank with it.
 * The process that makes the id must be the one that joins as rank 0: it
 * listens for the others from here on, on this host's first network
 * interface that is up (RAILYARD_UNIQUE_ID_HOST names another interface or
 * address). An id serves one job. */
#define RAILYARD_UNIQUE_ID_BYTES 128
typedef struct railyard_unique_id {
  char internal[RAILYARD_UNIQUE_ID_BYTES];
} railyard_unique_id_t;
railyard_result_t railyard_get_unique_id(railyard_unique_id_t* id);
/* Collective over the `nranks` ranks that use `id`; this one is `rank`.
 * Ranks wait for each other up to RAILYARD_BOOTSTRAP_TIMEOUT. */
railyard_result_t railyard_comm_init_rank(railyard_comm_t* comm, int nranks,
                                          const railyard_unique_id_t* id, int rank);

/* Collective over `comm`: a communicator of the same ranks whose messages
 * never match comm's (dup); one per color, ranks ordered by key, then by
 * rank in comm (split; *out is NULL for color RAILYARD_UNDEFINED). */
railyard_result_t railyard_comm_dup(railyard_comm_t comm, railyard_comm_t* out);
railyard_result_t railyard_comm_split(railyard_comm_t comm, int color, int key,
                                      railyard_comm_t* out);

/* Frees the handle. The world's ranks leave together: the last handle of a
 * world is destroyed on every rank at about the same time. NULL is fine. */
railyard_result_t railyard_comm_destroy(railyard_comm_t comm);

/* Ends the job: every rank's pending and later calls fail with
 * RAILYARD_ABORTED, naming this rank, the code and the reason. */
railyard_result_t railyard_comm_abort(railyard_comm_t comm, int code, const char* reason);

railyard_result_t railyard_comm_rank(railyard_comm_t comm, int* rank);
railyard_result_t railyard_comm_size(railyard_comm_t comm, int* size);

/* ---- Collectives ----
 * Every rank of the communicator calls the same collectives in the same
 * order with matching arguments; counts are elements of `type`. The
 * blocking forms wait up to RAILYARD_TIMEOUT (none by default); the i-forms
 * return a request that moves on while it is tested or waited for.
 * Floating-point results are bitwise equal on every rank. */

railyard_result_t railyard_barrier(railyard_comm_t comm);
railyard_result_t railyard_ibarrier(railyard_comm_t comm, railyard_request_t* request);

/* The root's `count` elements at `buffer` into every rank's `buffer`. */
railyard_result_t railyard_bcast(void* buffer, size_t count, railyard_datatype_t type, int root,
                                 railyard_comm_t comm);
railyard_result_t railyard_ibcast(void* buffer, size_t count, railyard_datatype_t type, int root,
                                  railyard_comm_t comm, railyard_request_t* request);

/* recv = the reduction of every rank's `count` elements at `send`
 * (RAILYARD_IN_PLACE: at recv). */
railyard_result_t railyard_allreduce(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_op_t op,
                                     railyard_comm_t comm);
railyard_result_t railyard_iallreduce(const void* send, void* recv, size_t count,
                                      railyard_datatype_t type, railyard_op_t op,
                                      railyard_comm_t comm, railyard_request_t* request);

/* The root's recv = the reduction; recv is not used on other ranks (at the
 * root, RAILYARD_IN_PLACE: the input is at recv). */
railyard_result_t railyard_reduce(const void* send, void* recv, size_t count,
                                  railyard_datatype_t type, railyard_op_t op, int root,
                                  railyard_comm_t comm);
railyard_result_t railyard_ireduce(const void* send, void* recv, size_t count,
                                   railyard_datatype_t type, railyard_op_t op, int root,
                                   railyard_comm_t comm, railyard_request_t* request);

/* Every rank's `count` elements, in rank order, into recv (size * count
 * elements; RAILYARD_IN_PLACE: this rank's block is at its place). */
railyard_result_t railyard_allgather(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_comm_t comm);
railyard_result_t railyard_iallgather(const void* send, void* recv, size_t count,
                                      railyard_datatype_t type, railyard_comm_t comm,
                                      railyard_request_t* request);

/* The reduction of every rank's size * count elements, cut into size
 * blocks: rank r gets block r in recv (RAILYARD_IN_PLACE: input at recv). */
railyard_result_t railyard_reduce_scatter(const void* send, void* recv, size_t count,
                                          railyard_datatype_t type, railyard_op_t op,
                                          railyard_comm_t comm);
railyard_result_t railyard_ireduce_scatter(const void* send, void* recv, size_t count,
                                           railyard_datatype_t type, railyard_op_t op,
                                           railyard_comm_t comm, railyard_request_t* request);

/* Block r of send (size blocks of `count`) to rank r, whose block from this
 * rank lands at block `rank` of recv (RAILYARD_IN_PLACE: blocks in recv). */
railyard_result_t railyard_alltoall(const void* send, void* recv, size_t count,
                                    railyard_datatype_t type, railyard_comm_t comm);
railyard_result_t railyard_ialltoall(const void* send, void* recv, size_t count,
                                     railyard_datatype_t type, railyard_comm_t comm,
                                     railyard_request_t* request);

/* ---- Point to point ----
 * Bytes to a rank of the communicator, tags 0 to 2^31-1. */
railyard_result_t railyard_send(const void* data, size_t bytes, int dest, int tag,
                                railyard_comm_t comm);
/* `status` may be NULL. */
railyard_result_t railyard_recv(void* data, size_t bytes, int source, int tag, railyard_comm_t comm,
                                railyard_status_t* status);
railyard_result_t railyard_isend(const void* data, size_t bytes, int dest, int tag,
                                 railyard_comm_t comm, railyard_request_t* request);
railyard_result_t railyard_irecv(void* data, size_t bytes, int source, int tag,
                                 railyard_comm_t comm, railyard_request_t* request);

/* ---- Requests ----
 * Waiting for or finding finished a request frees it and sets *request to
 * NULL; a NULL request is finished at once. `status` may be NULL. A failed
 * request is freed too and returns its error. */
railyard_result_t railyard_wait(railyard_request_t* request, railyard_status_t* status);
railyard_result_t railyard_test(railyard_request_t* request, int* done, railyard_status_t* status);

#ifdef __cplusplus
}
#endif

#endif /* RAILYARD_C_API_RAILYARD_H */
