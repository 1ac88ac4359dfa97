// Which MPI datatypes and operations railyard can carry, and as what. What
// it cannot carry goes to MPI with the reason (docs/mpi.md, "What the shim
// takes").
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <variant>

#include "railyard/comm/collectives/datatype.h"

namespace railyard::mpi_shim {

// Why a call goes to MPI instead: a short phrase for RAILYARD_MPI_VERBOSE=2.
struct Declined {
  std::string reason;
};

// The bytes `count` elements of `type` take, when they lie back to back
// with nothing between or around them (every predefined type but the pair
// types of MINLOC/MAXLOC, and derived types that are no more than runs of
// them): what a bcast, allgather or alltoall moves as plain bytes.
[[nodiscard]] std::variant<std::size_t, Declined> dense_bytes(MPI_Datatype type, int count);

// The railyard element type of a predefined MPI type a reduction can take
// with `op` (MPI's rules: MPI_BYTE only with bitwise operations, no
// arithmetic on characters or logicals), and the operation.
struct Reduction {
  comm::DataType type;
  comm::ReduceOp op;
};
[[nodiscard]] std::variant<Reduction, Declined> reduction_of(MPI_Datatype type, MPI_Op op);

}  // namespace railyard::mpi_shim
