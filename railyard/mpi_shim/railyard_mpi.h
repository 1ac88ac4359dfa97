/* railyard's C API over an MPI communicator, from librailyard_mpi.so
 * (docs/c-api.md, "From an MPI communicator"). C99. */
#ifndef RAILYARD_MPI_SHIM_RAILYARD_MPI_H
#define RAILYARD_MPI_SHIM_RAILYARD_MPI_H

#include <mpi.h>

#include "railyard/c_api/railyard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over `comm` (an intra-communicator): a railyard communicator
 * of its ranks, in its order, bootstrapped with MPI_Allgather on a
 * duplicate of it; no railyard variable is needed. Each call makes a new
 * one, with endpoints of its own. Destroy it (railyard_comm_destroy, on
 * every rank) before MPI_Finalize: its ranks leave with one more exchange
 * over MPI. A rank that cannot build its part makes every rank's call fail
 * (the others with RAILYARD_REMOTE_ERROR, naming it) rather than hang. */
railyard_result_t railyard_comm_init_mpi(MPI_Comm comm, railyard_comm_t* out);

#ifdef __cplusplus
}
#endif

#endif /* RAILYARD_MPI_SHIM_RAILYARD_MPI_H */
