// The blocking collectives the shim intercepts (MPI's C entry points). Each
// works out what the call moves, asks the shim whether railyard carries it
// (route), and either runs railyard's collective or hands the call to
// PMPI unchanged. docs/mpi.md, "What the shim takes".
#include <mpi.h>

#include <variant>

#include "railyard/comm/collectives/collectives.h"
#include "railyard/mpi_shim/collective_arguments.h"
#include "railyard/mpi_shim/shim.h"

namespace railyard::mpi_shim {
namespace {

// Runs `carry` on railyard; a failure becomes the MPI error code that
// comm's error handler had.
template <typename Carry>
int carried(Shim& shim, MPI_Comm comm, const char* call, Carry&& carry) noexcept {
  try {
    carry();
    return MPI_SUCCESS;
  } catch (...) {
    return report_failure(shim.error_codes(), comm, call);
  }
}

}  // namespace
}  // namespace railyard::mpi_shim

using railyard::mpi_shim::MpiCollective;
using railyard::mpi_shim::Shim;
namespace shim_args = railyard::mpi_shim;
namespace rc = railyard::comm;

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const auto reduction = shim_args::reduction_arguments(datatype, op, count);
  const rc::Communicator* target = shim.route(MpiCollective::kAllreduce, "MPI_Allreduce", comm,
                                              reduction.bytes, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  }
  return shim_args::carried(shim, comm, "MPI_Allreduce", [&] {
    rc::allreduce(*target, shim_args::input(sendbuf), recvbuf, static_cast<std::size_t>(count),
                  reduction.type, reduction.op);
  });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const auto reduction = shim_args::reduction_arguments(datatype, op, count);
  const rc::Communicator* target = shim.route(MpiCollective::kReduce, "MPI_Reduce", comm,
                                              reduction.bytes, __builtin_return_address(0));
  if (target == nullptr || !shim_args::valid_root(*target, root)) {
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  }
  return shim_args::carried(shim, comm, "MPI_Reduce", [&] {
    rc::reduce(*target, shim_args::input(sendbuf), recvbuf, static_cast<std::size_t>(count),
               reduction.type, reduction.op, root);
  });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const auto bytes = shim_args::dense_bytes(datatype, count);
  const rc::Communicator* target =
      shim.route(MpiCollective::kBcast, "MPI_Bcast", comm, bytes, __builtin_return_address(0));
  if (target == nullptr || !shim_args::valid_root(*target, root)) {
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  }
  return shim_args::carried(shim, comm, "MPI_Bcast", [&] {
    rc::bcast(*target, buffer, std::get<std::size_t>(bytes), rc::DataType::kUint8, root);
  });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const auto block = shim_args::block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target = shim.route(MpiCollective::kAllgather, "MPI_Allgather", comm,
                                              block, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return shim_args::carried(shim, comm, "MPI_Allgather", [&] {
    rc::allgather(*target, shim_args::input(sendbuf), recvbuf, std::get<std::size_t>(block),
                  rc::DataType::kUint8);
  });
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const auto reduction = shim_args::reduction_arguments(datatype, op, recvcount);
  const rc::Communicator* target =
      shim.route(MpiCollective::kReduceScatterBlock, "MPI_Reduce_scatter_block", comm,
                 reduction.bytes, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  }
  return shim_args::carried(shim, comm, "MPI_Reduce_scatter_block", [&] {
    rc::reduce_scatter(*target, shim_args::input(sendbuf), recvbuf,
                       static_cast<std::size_t>(recvcount), reduction.type, reduction.op);
  });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const auto block = shim_args::block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target = shim.route(MpiCollective::kAlltoall, "MPI_Alltoall", comm,
                                              block, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return shim_args::carried(shim, comm, "MPI_Alltoall", [&] {
    rc::alltoall(*target, shim_args::input(sendbuf), recvbuf, std::get<std::size_t>(block),
                 rc::DataType::kUint8);
  });
}

int MPI_Barrier(MPI_Comm comm) {
  Shim& shim = Shim::instance();
  const rc::Communicator* target = shim.route(MpiCollective::kBarrier, "MPI_Barrier", comm,
                                              std::size_t{0}, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Barrier(comm);
  }
  return shim_args::carried(shim, comm, "MPI_Barrier", [&] { rc::barrier(*target); });
}

}  // extern "C"
