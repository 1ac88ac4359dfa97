// The blocking collectives the shim intercepts (MPI's C entry points). Each
// works out what the call moves, asks the shim whether railyard carries it
// (route), and either runs railyard's collective or hands the call to
// PMPI unchanged. docs/mpi.md, "What the shim takes".
#include <mpi.h>

#include <variant>

#include "railyard/comm/collectives.h"
#include "railyard/mpi_shim/detail/blocking_collectives.h"
#include "railyard/mpi_shim/detail/collective_arguments.h"
#include "railyard/mpi_shim/detail/shim.h"

namespace railyard::mpi_shim {
namespace rc = railyard::comm;

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const auto reduction = reduction_arguments(datatype, op, count);
  const rc::Communicator* target =
      shim.route(MpiCollective::kAllreduce, "MPI_Allreduce", comm, reduction.bytes, call_site);
  if (target == nullptr) {
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Allreduce", [&] {
    rc::allreduce(*target, input(sendbuf), recvbuf, static_cast<std::size_t>(count), reduction.type,
                  reduction.op);
  });
}

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const auto reduction = reduction_arguments(datatype, op, count);
  const rc::Communicator* target =
      shim.route(MpiCollective::kReduce, "MPI_Reduce", comm, reduction.bytes, call_site);
  if (target == nullptr || !valid_reduce(*target, root, sendbuf)) {
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Reduce", [&] {
    rc::reduce(*target, input(sendbuf), recvbuf, static_cast<std::size_t>(count), reduction.type,
               reduction.op, root);
  });
}

int bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const void* call_site) {
  Shim& shim = Shim::instance();
  const auto bytes = dense_bytes(datatype, count);
  const rc::Communicator* target =
      shim.route(MpiCollective::kBcast, "MPI_Bcast", comm, bytes, call_site);
  if (target == nullptr || !valid_root(*target, root)) {
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Bcast", [&] {
    rc::bcast(*target, buffer, std::get<std::size_t>(bytes), collectives::DataType::kUint8, root);
  });
}

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const auto block = block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target =
      shim.route(MpiCollective::kAllgather, "MPI_Allgather", comm, block, call_site);
  if (target == nullptr) {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Allgather", [&] {
    rc::allgather(*target, input(sendbuf), recvbuf, std::get<std::size_t>(block),
                  collectives::DataType::kUint8);
  });
}

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const auto reduction = reduction_arguments(datatype, op, recvcount);
  const rc::Communicator* target =
      shim.route(MpiCollective::kReduceScatterBlock, "MPI_Reduce_scatter_block", comm,
                 reduction.bytes, call_site);
  if (target == nullptr) {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Reduce_scatter_block", [&] {
    rc::reduce_scatter(*target, input(sendbuf), recvbuf, static_cast<std::size_t>(recvcount),
                       reduction.type, reduction.op);
  });
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const auto block = block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target =
      shim.route(MpiCollective::kAlltoall, "MPI_Alltoall", comm, block, call_site);
  if (target == nullptr) {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Alltoall", [&] {
    rc::alltoall(*target, input(sendbuf), recvbuf, std::get<std::size_t>(block),
                 collectives::DataType::kUint8);
  });
}

int barrier(MPI_Comm comm, const void* call_site) {
  Shim& shim = Shim::instance();
  const rc::Communicator* target =
      shim.route(MpiCollective::kBarrier, "MPI_Barrier", comm, std::size_t{0}, call_site);
  if (target == nullptr) {
    return PMPI_Barrier(comm);
  }
  return carried(shim.error_codes(), comm, "MPI_Barrier", [&] { rc::barrier(*target); });
}

}  // namespace railyard::mpi_shim

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  return railyard::mpi_shim::allreduce(sendbuf, recvbuf, count, datatype, op, comm,
                                       __builtin_return_address(0));
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  return railyard::mpi_shim::reduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                                    __builtin_return_address(0));
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return railyard::mpi_shim::bcast(buffer, count, datatype, root, comm,
                                   __builtin_return_address(0));
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return railyard::mpi_shim::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       comm, __builtin_return_address(0));
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return railyard::mpi_shim::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                                  __builtin_return_address(0));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return railyard::mpi_shim::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, __builtin_return_address(0));
}

int MPI_Barrier(MPI_Comm comm) {
  return railyard::mpi_shim::barrier(comm, __builtin_return_address(0));
}

}  // extern "C"
