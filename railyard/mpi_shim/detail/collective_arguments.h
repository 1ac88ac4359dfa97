// What an intercepted collective's arguments ask railyard to move, shared by
// the blocking and non-blocking C entry points and the Fortran ones.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <variant>
#include <vector>

#include "railyard/comm/collectives.h"
#include "railyard/mpi_shim/detail/mpi_types.h"

namespace railyard::mpi_shim {

// A reduction of `count` elements: its bytes (or why railyard cannot
// reduce them) and, when it can, as what.
struct ReductionArguments {
  std::variant<std::size_t, Declined> bytes;
  collectives::DataType type = collectives::DataType::kUint8;
  collectives::ReduceOp op = collectives::ReduceOp::kSum;
};
[[nodiscard]] ReductionArguments reduction_arguments(MPI_Datatype type, MPI_Op op, int count);

// The bytes of one rank's block of an allgather or alltoall: the receive
// block's, which the send block must equal (with MPI_IN_PLACE there is
// none).
[[nodiscard]] std::variant<std::size_t, Declined> block_bytes(const void* sendbuf, int sendcount,
                                                              MPI_Datatype sendtype, int recvcount,
                                                              MPI_Datatype recvtype);

// The bytes of a v-form's `counts` (one per rank of `ranks`) of `type`, all
// ranks together: checked, not yet converted (most calls go to MPI).
[[nodiscard]] std::variant<std::size_t, Declined> vector_bytes(const int* counts, const int* displs,
                                                               MPI_Datatype type, int ranks);

// A v-form's counts and displacements in bytes, as railyard takes them (in
// elements of DataType::kUint8), for `type` that vector_bytes accepted.
struct ByteBlocks {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
};
[[nodiscard]] ByteBlocks byte_blocks(const int* counts, const int* displs, MPI_Datatype type,
                                     int ranks);

// Whether `root` is a rank of `target` (MPI reports one that is not).
[[nodiscard]] inline bool valid_root(const comm::Communicator& target, int root) noexcept {
  return root >= 0 && root < target.size();
}

// Whether a reduce's arguments are railyard's to take at this rank:
// MPI_IN_PLACE is the root's alone (elsewhere MPI reports it).
[[nodiscard]] inline bool valid_reduce(const comm::Communicator& target, int root,
                                       const void* sendbuf) noexcept {
  return valid_root(target, root) && (sendbuf != MPI_IN_PLACE || target.rank() == root);
}

// A send buffer as railyard takes it: MPI_IN_PLACE is kInPlace.
[[nodiscard]] inline const void* input(const void* sendbuf) noexcept {
  return sendbuf == MPI_IN_PLACE ? comm::kInPlace : sendbuf;
}

}  // namespace railyard::mpi_shim
