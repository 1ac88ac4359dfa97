// The blocking collectives the shim intercepts, with the call site that
// RAILYARD_MPI_VERBOSE=2 names: the C entry points (collectives.cc) and the
// Fortran ones (fortran.cc) both come here. Each returns an MPI error code.
#pragma once

#include <mpi.h>

namespace railyard::mpi_shim {

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const void* call_site);

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const void* call_site);

int bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const void* call_site);

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void* call_site);

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, const void* call_site);

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void* call_site);

int barrier(MPI_Comm comm, const void* call_site);

// vector_collectives.cc
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, const void* call_site);

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, const void* call_site);

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
               const void* call_site);

int alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
              void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
              MPI_Comm comm, const void* call_site);

int reduce_scatter(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, const void* call_site);

}  // namespace railyard::mpi_shim
