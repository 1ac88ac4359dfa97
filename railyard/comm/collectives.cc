// The collectives of a Communicator: each call is checked and carried out
// by the collectives layer, over the communicator's team of ranks.
#include "railyard/comm/collectives.h"

#include <memory>

#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"
#include "railyard/comm/detail/collective_access.h"
#include "railyard/comm/detail/operation.h"

namespace railyard::comm {

namespace detail {

const collectives::Team& CollectiveAccess::team(const Communicator& comm) noexcept {
  return comm.group_->team;
}

Request CollectiveAccess::start(const Communicator& comm, const collectives::Call& call,
                                const CollectiveOptions& options) {
  const collectives::Team& team = comm.group_->team;
  const collectives::Algorithm& algorithm = collectives::select(team, call, options);
  auto operation = std::make_unique<Operation>(comm.group_, false, -1, -1, 0);
  operation->collective = collectives::start(team, call, algorithm);
  operation->collective_name = collectives::to_string(call.collective).data();
  // Its first transfers go out now; a collective between this rank and
  // itself alone may even end here.
  (void)operation->done();
  return Request(std::move(operation));
}

}  // namespace detail

namespace {

const collectives::Team& team_of(const Communicator& comm) noexcept {
  return detail::CollectiveAccess::team(comm);
}

Request start(const Communicator& comm, const collectives::Call& call,
              const CollectiveOptions& options) {
  return detail::CollectiveAccess::start(comm, call, options);
}

}  // namespace

Request ibarrier(const Communicator& comm, const CollectiveOptions& options) {
  return start(comm, collectives::barrier_call(team_of(comm)), options);
}

void barrier(const Communicator& comm, const CollectiveOptions& options) {
  start(comm, collectives::barrier_call(team_of(comm)), options).wait();
}

Request ibcast(const Communicator& comm, void* buffer, std::size_t count, DataType type, int root,
               const CollectiveOptions& options) {
  return start(comm, collectives::bcast_call(team_of(comm), buffer, count, type, root), options);
}

void bcast(const Communicator& comm, void* buffer, std::size_t count, DataType type, int root,
           const CollectiveOptions& options) {
  start(comm, collectives::bcast_call(team_of(comm), buffer, count, type, root), options).wait();
}

Request iallreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
                   DataType type, ReduceOp op, const CollectiveOptions& options) {
  return start(comm, collectives::allreduce_call(team_of(comm), send, recv, count, type, op, false),
               options);
}

void allreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op, const CollectiveOptions& options) {
  start(comm, collectives::allreduce_call(team_of(comm), send, recv, count, type, op, true),
        options)
      .wait();
}

Request iallgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
                   DataType type, const CollectiveOptions& options) {
  return start(comm, collectives::allgather_call(team_of(comm), send, recv, count, type), options);
}

void allgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, const CollectiveOptions& options) {
  start(comm, collectives::allgather_call(team_of(comm), send, recv, count, type), options).wait();
}

Request ireduce_scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                        DataType type, ReduceOp op, const CollectiveOptions& options) {
  return start(comm, collectives::reduce_scatter_call(team_of(comm), send, recv, count, type, op),
               options);
}

void reduce_scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                    DataType type, ReduceOp op, const CollectiveOptions& options) {
  start(comm, collectives::reduce_scatter_call(team_of(comm), send, recv, count, type, op), options)
      .wait();
}

Request ireduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
                DataType type, ReduceOp op, int root, const CollectiveOptions& options) {
  return start(comm, collectives::reduce_call(team_of(comm), send, recv, count, type, op, root),
               options);
}

void reduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, ReduceOp op, int root, const CollectiveOptions& options) {
  start(comm, collectives::reduce_call(team_of(comm), send, recv, count, type, op, root), options)
      .wait();
}

Request ialltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
                  DataType type, const CollectiveOptions& options) {
  return start(comm, collectives::alltoall_call(team_of(comm), send, recv, count, type), options);
}

void alltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
              DataType type, const CollectiveOptions& options) {
  start(comm, collectives::alltoall_call(team_of(comm), send, recv, count, type), options).wait();
}

Request igather(const Communicator& comm, const void* send, void* recv, std::size_t count,
                DataType type, int root, const CollectiveOptions& options) {
  return start(comm, collectives::gather_call(team_of(comm), send, recv, count, type, root),
               options);
}

void gather(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, int root, const CollectiveOptions& options) {
  start(comm, collectives::gather_call(team_of(comm), send, recv, count, type, root), options)
      .wait();
}

Request iscatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                 DataType type, int root, const CollectiveOptions& options) {
  return start(comm, collectives::scatter_call(team_of(comm), send, recv, count, type, root),
               options);
}

void scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
             DataType type, int root, const CollectiveOptions& options) {
  start(comm, collectives::scatter_call(team_of(comm), send, recv, count, type, root), options)
      .wait();
}

Request igatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                 std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                 DataType type, int root, const CollectiveOptions& options) {
  return start(
      comm, collectives::gatherv_call(team_of(comm), send, count, recv, counts, displs, type, root),
      options);
}

void gatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
             std::span<const std::size_t> counts, std::span<const std::size_t> displs,
             DataType type, int root, const CollectiveOptions& options) {
  start(comm,
        collectives::gatherv_call(team_of(comm), send, count, recv, counts, displs, type, root),
        options)
      .wait();
}

Request iscatterv(const Communicator& comm, const void* send, std::span<const std::size_t> counts,
                  std::span<const std::size_t> displs, void* recv, std::size_t count, DataType type,
                  int root, const CollectiveOptions& options) {
  return start(
      comm,
      collectives::scatterv_call(team_of(comm), send, counts, displs, recv, count, type, root),
      options);
}

void scatterv(const Communicator& comm, const void* send, std::span<const std::size_t> counts,
              std::span<const std::size_t> displs, void* recv, std::size_t count, DataType type,
              int root, const CollectiveOptions& options) {
  start(comm,
        collectives::scatterv_call(team_of(comm), send, counts, displs, recv, count, type, root),
        options)
      .wait();
}

Request iallgatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                    std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                    DataType type, const CollectiveOptions& options) {
  return start(comm,
               collectives::allgatherv_call(team_of(comm), send, count, recv, counts, displs, type),
               options);
}

void allgatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                DataType type, const CollectiveOptions& options) {
  start(comm, collectives::allgatherv_call(team_of(comm), send, count, recv, counts, displs, type),
        options)
      .wait();
}

Request ialltoallv(const Communicator& comm, const void* send,
                   std::span<const std::size_t> send_counts,
                   std::span<const std::size_t> send_displs, void* recv,
                   std::span<const std::size_t> recv_counts,
                   std::span<const std::size_t> recv_displs, DataType type,
                   const CollectiveOptions& options) {
  return start(comm,
               collectives::alltoallv_call(team_of(comm), send, send_counts, send_displs, recv,
                                           recv_counts, recv_displs, type),
               options);
}

void alltoallv(const Communicator& comm, const void* send, std::span<const std::size_t> send_counts,
               std::span<const std::size_t> send_displs, void* recv,
               std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
               DataType type, const CollectiveOptions& options) {
  start(comm,
        collectives::alltoallv_call(team_of(comm), send, send_counts, send_displs, recv,
                                    recv_counts, recv_displs, type),
        options)
      .wait();
}

Request ireduce_scatterv(const Communicator& comm, const void* send, void* recv,
                         std::span<const std::size_t> counts, DataType type, ReduceOp op,
                         const CollectiveOptions& options) {
  return start(comm, collectives::reduce_scatterv_call(team_of(comm), send, recv, counts, type, op),
               options);
}

void reduce_scatterv(const Communicator& comm, const void* send, void* recv,
                     std::span<const std::size_t> counts, DataType type, ReduceOp op,
                     const CollectiveOptions& options) {
  start(comm, collectives::reduce_scatterv_call(team_of(comm), send, recv, counts, type, op),
        options)
      .wait();
}

}  // namespace railyard::comm
