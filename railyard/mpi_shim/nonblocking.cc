// The non-blocking collectives the shim intercepts: as collectives.cc, but
// railyard's request becomes an MPI request (pending_collectives.h) that
// MPI's waits and tests complete (waits.cc, progress_hook.h).
#include <mpi.h>

#include <variant>

#include "railyard/comm/collectives.h"
#include "railyard/mpi_shim/detail/collective_arguments.h"
#include "railyard/mpi_shim/detail/nonblocking_collectives.h"
#include "railyard/mpi_shim/detail/pending_collectives.h"
#include "railyard/mpi_shim/detail/shim.h"

namespace railyard::mpi_shim {
namespace {

namespace rc = railyard::comm;

// Starts `start` (which returns railyard's request) and hands MPI's
// request back; a failure to start becomes comm's error.
template <typename Start>
int started(Shim& shim, MpiCollective which, MPI_Comm comm, const char* call, MPI_Request* request,
            Start&& start) noexcept {
  try {
    *request = PendingCollectives::instance().adopt(start(), comm, call, shim.error_codes());
    shim.note_nonblocking(which);
    return MPI_SUCCESS;
  } catch (...) {
    *request = MPI_REQUEST_NULL;
    return report_failure(shim.error_codes(), comm, call);
  }
}

// route() for a non-blocking call from `site`: one from Fortran goes to
// MPI when nothing but the C waits would complete it.
const rc::Communicator* route(Shim& shim, MpiCollective which, const char* call, MPI_Comm comm,
                              const std::variant<std::size_t, Declined>& bytes, CallSite site) {
  if (site.fortran && !shim.progress_hooked()) {
    return shim.route(which, call, comm, Declined{.why = Declined::Why::kFortranWaitsBypassShim},
                      site.address);
  }
  return shim.route(which, call, comm, bytes, site.address);
}

}  // namespace

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request, CallSite site) {
  Shim& shim = Shim::instance();
  const auto reduction = reduction_arguments(datatype, op, count);
  const rc::Communicator* target =
      route(shim, MpiCollective::kAllreduce, "MPI_Iallreduce", comm, reduction.bytes, site);
  if (target == nullptr) {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  }
  return started(shim, MpiCollective::kAllreduce, comm, "MPI_Iallreduce", request, [&] {
    return rc::iallreduce(*target, input(sendbuf), recvbuf, static_cast<std::size_t>(count),
                          reduction.type, reduction.op);
  });
}

int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, MPI_Comm comm, MPI_Request* request, CallSite site) {
  Shim& shim = Shim::instance();
  const auto reduction = reduction_arguments(datatype, op, count);
  const rc::Communicator* target =
      route(shim, MpiCollective::kReduce, "MPI_Ireduce", comm, reduction.bytes, site);
  if (target == nullptr || !valid_reduce(*target, root, sendbuf)) {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  }
  return started(shim, MpiCollective::kReduce, comm, "MPI_Ireduce", request, [&] {
    return rc::ireduce(*target, input(sendbuf), recvbuf, static_cast<std::size_t>(count),
                       reduction.type, reduction.op, root);
  });
}

int ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
           MPI_Request* request, CallSite site) {
  Shim& shim = Shim::instance();
  const auto bytes = dense_bytes(datatype, count);
  const rc::Communicator* target =
      route(shim, MpiCollective::kBcast, "MPI_Ibcast", comm, bytes, site);
  if (target == nullptr || !valid_root(*target, root)) {
    return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  }
  return started(shim, MpiCollective::kBcast, comm, "MPI_Ibcast", request, [&] {
    return rc::ibcast(*target, buffer, std::get<std::size_t>(bytes), collectives::DataType::kUint8,
                      root);
  });
}

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
               CallSite site) {
  Shim& shim = Shim::instance();
  const auto block = block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target =
      route(shim, MpiCollective::kAllgather, "MPI_Iallgather", comm, block, site);
  if (target == nullptr) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request);
  }
  return started(shim, MpiCollective::kAllgather, comm, "MPI_Iallgather", request, [&] {
    return rc::iallgather(*target, input(sendbuf), recvbuf, std::get<std::size_t>(block),
                          collectives::DataType::kUint8);
  });
}

int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request, CallSite site) {
  Shim& shim = Shim::instance();
  const auto reduction = reduction_arguments(datatype, op, recvcount);
  const rc::Communicator* target = route(shim, MpiCollective::kReduceScatterBlock,
                                         "MPI_Ireduce_scatter_block", comm, reduction.bytes, site);
  if (target == nullptr) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  }
  return started(shim, MpiCollective::kReduceScatterBlock, comm, "MPI_Ireduce_scatter_block",
                 request, [&] {
                   return rc::ireduce_scatter(*target, input(sendbuf), recvbuf,
                                              static_cast<std::size_t>(recvcount), reduction.type,
                                              reduction.op);
                 });
}

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
              CallSite site) {
  Shim& shim = Shim::instance();
  const auto block = block_bytes(sendbuf, sendcount, sendtype, recvcount, recvtype);
  const rc::Communicator* target =
      route(shim, MpiCollective::kAlltoall, "MPI_Ialltoall", comm, block, site);
  if (target == nullptr) {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  }
  return started(shim, MpiCollective::kAlltoall, comm, "MPI_Ialltoall", request, [&] {
    return rc::ialltoall(*target, input(sendbuf), recvbuf, std::get<std::size_t>(block),
                         collectives::DataType::kUint8);
  });
}

int ibarrier(MPI_Comm comm, MPI_Request* request, CallSite site) {
  Shim& shim = Shim::instance();
  const rc::Communicator* target =
      route(shim, MpiCollective::kBarrier, "MPI_Ibarrier", comm, std::size_t{0}, site);
  if (target == nullptr) {
    return PMPI_Ibarrier(comm, request);
  }
  return started(shim, MpiCollective::kBarrier, comm, "MPI_Ibarrier", request,
                 [&] { return rc::ibarrier(*target); });
}

}  // namespace railyard::mpi_shim

namespace shim = railyard::mpi_shim;

extern "C" {

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  return shim::iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request,
                          {__builtin_return_address(0)});
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  return shim::ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request,
                       {__builtin_return_address(0)});
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  return shim::ibcast(buffer, count, datatype, root, comm, request, {__builtin_return_address(0)});
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return shim::iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                          {__builtin_return_address(0)});
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  return shim::ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request,
                                     {__builtin_return_address(0)});
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return shim::ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                         {__builtin_return_address(0)});
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return shim::ibarrier(comm, request, {__builtin_return_address(0)});
}

}  // extern "C"
