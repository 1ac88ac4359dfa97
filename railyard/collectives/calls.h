// Each collective's call: its arguments checked (UsageError naming the
// argument at fault), in the form every algorithm of it takes. The
// communicator's collectives (comm/collectives.h) document them; counts are
// elements of `type`, and kInPlace stands for a buffer as they say.
#pragma once

#include <cstddef>
#include <span>

#include "railyard/collectives/collective.h"
#include "railyard/collectives/datatype.h"
#include "railyard/collectives/team.h"

namespace railyard::collectives {

[[nodiscard]] Call barrier_call(const Team& team);
[[nodiscard]] Call bcast_call(const Team& team, void* buffer, std::size_t count, DataType type,
                              int root);
// `blocking`: the caller waits for it before it starts another.
[[nodiscard]] Call allreduce_call(const Team& team, const void* send, void* recv, std::size_t count,
                                  DataType type, ReduceOp op, bool blocking);
[[nodiscard]] Call allgather_call(const Team& team, const void* send, void* recv, std::size_t count,
                                  DataType type);
[[nodiscard]] Call reduce_scatter_call(const Team& team, const void* send, void* recv,
                                       std::size_t count, DataType type, ReduceOp op);
[[nodiscard]] Call reduce_call(const Team& team, const void* send, void* recv, std::size_t count,
                               DataType type, ReduceOp op, int root);
[[nodiscard]] Call alltoall_call(const Team& team, const void* send, void* recv, std::size_t count,
                                 DataType type);
[[nodiscard]] Call gather_call(const Team& team, const void* send, void* recv, std::size_t count,
                               DataType type, int root);
[[nodiscard]] Call scatter_call(const Team& team, const void* send, void* recv, std::size_t count,
                                DataType type, int root);
[[nodiscard]] Call gatherv_call(const Team& team, const void* send, std::size_t count, void* recv,
                                std::span<const std::size_t> counts,
                                std::span<const std::size_t> displs, DataType type, int root);
[[nodiscard]] Call scatterv_call(const Team& team, const void* send,
                                 std::span<const std::size_t> counts,
                                 std::span<const std::size_t> displs, void* recv, std::size_t count,
                                 DataType type, int root);
[[nodiscard]] Call allgatherv_call(const Team& team, const void* send, std::size_t count,
                                   void* recv, std::span<const std::size_t> counts,
                                   std::span<const std::size_t> displs, DataType type);
[[nodiscard]] Call alltoallv_call(const Team& team, const void* send,
                                  std::span<const std::size_t> send_counts,
                                  std::span<const std::size_t> send_displs, void* recv,
                                  std::span<const std::size_t> recv_counts,
                                  std::span<const std::size_t> recv_displs, DataType type);
[[nodiscard]] Call reduce_scatterv_call(const Team& team, const void* send, void* recv,
                                        std::span<const std::size_t> counts, DataType type,
                                        ReduceOp op);

}  // namespace railyard::collectives
