// Collective operations on a Communicator, carried out by the collectives
// layer (collectives/) over the communicator's ranks (docs/architecture.md,
// "Collectives"). Every rank of the communicator calls the same collectives
// in the same order with matching arguments, as MPI requires; counts are
// elements of `type`. The blocking forms wait up to the communicator's
// timeout; the i-forms return a Request that moves on while it is tested or
// waited for. Errors are the Communicator's: UsageError for a bad argument
// or ranks that disagree (naming them, where a transfer shows it),
// RemoteError naming a failed rank, TimeoutError.
#pragma once

#include <cstddef>
#include <span>

#include "railyard/collectives/collective.h"
#include "railyard/collectives/datatype.h"
#include "railyard/comm/communicator.h"
#include "railyard/comm/request.h"

namespace railyard::comm {

// The collectives layer's names a program uses with these calls.
using collectives::CollectiveOptions;
using collectives::DataType;
using collectives::kInPlace;
using collectives::ReduceOp;

void barrier(const Communicator& comm, const CollectiveOptions& options = {});
[[nodiscard]] Request ibarrier(const Communicator& comm, const CollectiveOptions& options = {});

// The root's `count` elements at `buffer` into every rank's `buffer`.
void bcast(const Communicator& comm, void* buffer, std::size_t count, DataType type, int root,
           const CollectiveOptions& options = {});
[[nodiscard]] Request ibcast(const Communicator& comm, void* buffer, std::size_t count,
                             DataType type, int root, const CollectiveOptions& options = {});

// recv = the element-wise reduction of every rank's `count` elements at
// `send` (kInPlace, or send == recv: at recv). Every rank gets the same
// bits, floating point included.
void allreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op, const CollectiveOptions& options = {});
[[nodiscard]] Request iallreduce(const Communicator& comm, const void* send, void* recv,
                                 std::size_t count, DataType type, ReduceOp op,
                                 const CollectiveOptions& options = {});

// Every rank's `count` elements at `send`, in rank order, into `recv`
// (size * count elements).
void allgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, const CollectiveOptions& options = {});
[[nodiscard]] Request iallgather(const Communicator& comm, const void* send, void* recv,
                                 std::size_t count, DataType type,
                                 const CollectiveOptions& options = {});

// The reduction of every rank's size * count elements at `send` (kInPlace:
// at recv), cut into size blocks of `count`: rank r gets block r in `recv`
// (MPI_Reduce_scatter_block).
void reduce_scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                    DataType type, ReduceOp op, const CollectiveOptions& options = {});
[[nodiscard]] Request ireduce_scatter(const Communicator& comm, const void* send, void* recv,
                                      std::size_t count, DataType type, ReduceOp op,
                                      const CollectiveOptions& options = {});

// The root's `recv` = the element-wise reduction of every rank's `count`
// elements at `send` (at the root, kInPlace: at recv); `recv` is not used
// on the other ranks.
void reduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, ReduceOp op, int root, const CollectiveOptions& options = {});
[[nodiscard]] Request ireduce(const Communicator& comm, const void* send, void* recv,
                              std::size_t count, DataType type, ReduceOp op, int root,
                              const CollectiveOptions& options = {});

// Block r of `send` (size blocks of `count` elements; kInPlace: of recv)
// to rank r, whose block from this rank lands at block `rank` of `recv`.
void alltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
              DataType type, const CollectiveOptions& options = {});
[[nodiscard]] Request ialltoall(const Communicator& comm, const void* send, void* recv,
                                std::size_t count, DataType type,
                                const CollectiveOptions& options = {});

// Every rank's `count` elements at `send`, in rank order, into the root's
// `recv` (size * count elements; not used elsewhere). At the root, kInPlace
// as `send`: its block is already at its place in recv.
void gather(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, int root, const CollectiveOptions& options = {});
[[nodiscard]] Request igather(const Communicator& comm, const void* send, void* recv,
                              std::size_t count, DataType type, int root,
                              const CollectiveOptions& options = {});

// Block r of the root's `send` (size blocks of `count` elements; not read
// elsewhere) into rank r's `recv`. At the root, kInPlace as `recv`: its
// block stays where it is in send.
void scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
             DataType type, int root, const CollectiveOptions& options = {});
[[nodiscard]] Request iscatter(const Communicator& comm, const void* send, void* recv,
                               std::size_t count, DataType type, int root,
                               const CollectiveOptions& options = {});

// The v-forms take, per rank, a count and a displacement (in elements) of
// the buffer that holds every rank's block; those arrays must hold one entry
// per rank and stay valid until the collective ends (the i-forms return
// first). A rank's own count must match what the other side expects of it,
// or the collective ends with a UsageError naming both ranks.
//
// gatherv: this rank's `count` elements at `send` land at the root's recv +
// displs[rank], which expects counts[rank] of them (counts and displs are
// read at the root only). kInPlace as in gather.
void gatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
             std::span<const std::size_t> counts, std::span<const std::size_t> displs,
             DataType type, int root, const CollectiveOptions& options = {});
[[nodiscard]] Request igatherv(const Communicator& comm, const void* send, std::size_t count,
                               void* recv, std::span<const std::size_t> counts,
                               std::span<const std::size_t> displs, DataType type, int root,
                               const CollectiveOptions& options = {});

// scatterv: counts[r] elements at the root's send + displs[r] into rank r's
// `recv`, which takes `count` of them. kInPlace as in scatter.
void scatterv(const Communicator& comm, const void* send, std::span<const std::size_t> counts,
              std::span<const std::size_t> displs, void* recv, std::size_t count, DataType type,
              int root, const CollectiveOptions& options = {});
[[nodiscard]] Request iscatterv(const Communicator& comm, const void* send,
                                std::span<const std::size_t> counts,
                                std::span<const std::size_t> displs, void* recv, std::size_t count,
                                DataType type, int root, const CollectiveOptions& options = {});

// allgatherv: every rank's block (this rank's: `count` elements at `send`,
// which must be counts[rank]) at recv + displs[r], counts[r] elements.
// kInPlace as `send`: this rank's block is already at its place.
void allgatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                DataType type, const CollectiveOptions& options = {});
[[nodiscard]] Request iallgatherv(const Communicator& comm, const void* send, std::size_t count,
                                  void* recv, std::span<const std::size_t> counts,
                                  std::span<const std::size_t> displs, DataType type,
                                  const CollectiveOptions& options = {});

// alltoallv: send_counts[r] elements at send + send_displs[r] to rank r,
// whose block from this rank lands at recv + recv_displs[rank]; this rank
// takes recv_counts[r] elements from rank r at recv + recv_displs[r].
// kInPlace as `send`: the blocks to send are in recv, laid out as received
// (send_counts and send_displs are not read).
void alltoallv(const Communicator& comm, const void* send, std::span<const std::size_t> send_counts,
               std::span<const std::size_t> send_displs, void* recv,
               std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
               DataType type, const CollectiveOptions& options = {});
[[nodiscard]] Request ialltoallv(const Communicator& comm, const void* send,
                                 std::span<const std::size_t> send_counts,
                                 std::span<const std::size_t> send_displs, void* recv,
                                 std::span<const std::size_t> recv_counts,
                                 std::span<const std::size_t> recv_displs, DataType type,
                                 const CollectiveOptions& options = {});

// reduce_scatterv (MPI_Reduce_scatter): the reduction of every rank's
// sum(counts) elements at `send` (kInPlace: at recv), cut into back-to-back
// blocks of counts[r] elements: rank r gets block r in `recv`.
void reduce_scatterv(const Communicator& comm, const void* send, void* recv,
                     std::span<const std::size_t> counts, DataType type, ReduceOp op,
                     const CollectiveOptions& options = {});
[[nodiscard]] Request ireduce_scatterv(const Communicator& comm, const void* send, void* recv,
                                       std::span<const std::size_t> counts, DataType type,
                                       ReduceOp op, const CollectiveOptions& options = {});

}  // namespace railyard::comm
