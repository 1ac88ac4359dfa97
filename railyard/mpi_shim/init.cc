// MPI_Init and MPI_Init_thread: MPI first, then the shim's railyard world,
// bootstrapped over MPI_COMM_WORLD (no railyard variable is needed under
// mpirun). The shim ends inside MPI_Finalize (shim.cc, delete_self), so
// MPI_Finalize itself is not intercepted.
#include <mpi.h>

#include "railyard/mpi_shim/detail/shim.h"

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) {
    return rc;
  }
  return railyard::mpi_shim::Shim::instance().start();
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc != MPI_SUCCESS) {
    return rc;
  }
  return railyard::mpi_shim::Shim::instance().start();
}

}  // extern "C"
