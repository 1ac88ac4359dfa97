// The non-blocking collectives the shim intercepts: as collectives.cc, but
// railyard's request becomes an MPI request (pending_collectives.h) that
// MPI's waits and tests complete (waits.cc).
#include <mpi.h>

#include <variant>

#include "railyard/comm/collectives/collectives.h"
#include "railyard/mpi_shim/detail/collective_arguments.h"
#include "railyard/mpi_shim/detail/pending_collectives.h"
#include "railyard/mpi_shim/detail/shim.h"

namespace railyard::mpi_shim {
namespace {

// Starts `start` (which returns railyard's request) and hands MPI's
// request back; a failure to start becomes comm's error.
template <typename Start>
int started(Shim& shim, MPI_Comm comm, const char* call, MPI_Request* request,
            Start&& start) noexcept {
  try {
    *request = PendingCollectives::instance().adopt(start(), comm, call, shim.error_codes());
    return MPI_SUCCESS;
  } catch (...) {
    *request = MPI_REQUEST_NULL;
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

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  Shim& shim = Shim::instance();
  const auto reduction = shim_args::reduction_arguments(datatype, op, count);
  const rc::Communicator* target = shim.route(MpiCollective::kAllreduce, "MPI_Iallreduce", comm,
                                              reduction.bytes, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  }
  return shim_args::started(shim, comm, "MPI_Iallreduce", request, [&] {
    return rc::iallreduce(*target, shim_args::input(sendbuf), recvbuf,
                          static_cast<std::size_t>(count), reduction.type, reduction.op);
  });
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  Shim& shim = Shim::instance();
  const auto reduction = shim_args::reduction_arguments(datatype, op, count);
  const rc::Communicator* target = shim.route(MpiCollective::kReduce, "MPI_Ireduce", comm,
                                              reduction.bytes, __builtin_return_address(0));
  if (target == nullptr || !shim_args::valid_reduce(*target, root, sendbuf)) {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  }
  return shim_args::started(shim, comm, "MPI_Ireduce", request, [&] {
    return rc::ireduce(*target, shim_args::input(sendbuf), recvbuf, static_cast<std::size_t>(count),
                       reduction.type, reduction.op, root);
  });
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  Shim& shim = Shim::instance();
  const auto bytes = shim_args::dense_bytes(datatype, count);
  const rc::Communicator* target =
      shim.route(MpiCollective::kBcast, "MPI_Ibcast", comm, bytes, __builtin_return_address(0));
  if (target == nullptr || !shim_args::valid_root(*target, root)) {
    return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  }
  return shim_args::started(shim, comm, "MPI_Ibcast", request, [&] {
    return rc::ibcast(*target, buffer, std::get<std::size_t>(bytes), rc::DataType::kUint8, root);
  });
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Shim& shim = Shim::instance();
  const auto block = shim_args::block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target = shim.route(MpiCollective::kAllgather, "MPI_Iallgather", comm,
                                              block, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request);
  }
  return shim_args::started(shim, comm, "MPI_Iallgather", request, [&] {
    return rc::iallgather(*target, shim_args::input(sendbuf), recvbuf, std::get<std::size_t>(block),
                          rc::DataType::kUint8);
  });
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  Shim& shim = Shim::instance();
  const auto reduction = shim_args::reduction_arguments(datatype, op, recvcount);
  const rc::Communicator* target =
      shim.route(MpiCollective::kReduceScatterBlock, "MPI_Ireduce_scatter_block", comm,
                 reduction.bytes, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  }
  return shim_args::started(shim, comm, "MPI_Ireduce_scatter_block", request, [&] {
    return rc::ireduce_scatter(*target, shim_args::input(sendbuf), recvbuf,
                               static_cast<std::size_t>(recvcount), reduction.type, reduction.op);
  });
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Shim& shim = Shim::instance();
  const auto block = shim_args::block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target = shim.route(MpiCollective::kAlltoall, "MPI_Ialltoall", comm,
                                              block, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  }
  return shim_args::started(shim, comm, "MPI_Ialltoall", request, [&] {
    return rc::ialltoall(*target, shim_args::input(sendbuf), recvbuf, std::get<std::size_t>(block),
                         rc::DataType::kUint8);
  });
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  Shim& shim = Shim::instance();
  const rc::Communicator* target = shim.route(MpiCollective::kBarrier, "MPI_Ibarrier", comm,
                                              std::size_t{0}, __builtin_return_address(0));
  if (target == nullptr) {
    return PMPI_Ibarrier(comm, request);
  }
  return shim_args::started(shim, comm, "MPI_Ibarrier", request,
                            [&] { return rc::ibarrier(*target); });
}

}  // extern "C"
