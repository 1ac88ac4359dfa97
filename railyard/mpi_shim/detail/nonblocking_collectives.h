// The non-blocking collectives the shim intercepts: the C entry points
// (nonblocking.cc) and the Fortran ones (fortran.cc) both come here. Each
// returns an MPI error code and sets *request.
#pragma once

#include <mpi.h>

namespace railyard::mpi_shim {

// Where a call came from: the call site RAILYARD_MPI_VERBOSE=2 names, and
// whether it came through Fortran, whose waits call PMPI_Wait directly and
// so complete railyard's requests only when MPI's progress engine moves
// them on (Shim::progress_hooked); without that they go to MPI.
struct CallSite {
  const void* address = nullptr;
  bool fortran = false;
};

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request, CallSite site);

int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, MPI_Comm comm, MPI_Request* request, CallSite site);

int ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
           MPI_Request* request, CallSite site);

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
               CallSite site);

int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request, CallSite site);

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
              CallSite site);

int ibarrier(MPI_Comm comm, MPI_Request* request, CallSite site);

}  // namespace railyard::mpi_shim
