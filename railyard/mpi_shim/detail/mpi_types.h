// Which MPI datatypes and operations railyard can carry, and as what. What
// it cannot carry goes to MPI with the reason (docs/mpi.md, "What the shim
// takes").
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "railyard/collectives/datatype.h"

namespace railyard::mpi_shim {

// Why a call goes to MPI instead. Kept as facts, not text: most such
// calls are never reported, and formatting a reason on each one would cost
// every handed-back call an allocation. describe() makes the phrase for
// RAILYARD_MPI_VERBOSE=2.
struct Declined {
  enum class Why : std::uint8_t {
    kNegativeCount,           // first: the count
    kInvalidType,             // an invalid datatype handle
    kGaps,                    // type; first, second, third: size, extent, true extent
    kUnsupportedOp,           // a user, MINLOC/MAXLOC, logical or REPLACE operation
    kByteArithmetic,          // MPI_BYTE with an arithmetic operation
    kBitwiseNotInteger,       // type: a floating-point type under BAND/BOR/BXOR
    kNotReducible,            // type: not a predefined integer or floating-point type
    kBlockSizesDiffer,        // first, second: send and receive block bytes
    kNegativeDisplacement,    // first: the rank, second: its displacement
    kFortranWaitsBypassShim,  // a Fortran non-blocking call, and no MPI progress hook
  };
  Why why;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::int64_t first = 0;
  std::int64_t second = 0;
  std::int64_t third = 0;

  [[nodiscard]] std::string describe() const;
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
  collectives::DataType type;
  collectives::ReduceOp op;
};
[[nodiscard]] std::variant<Reduction, Declined> reduction_of(MPI_Datatype type, MPI_Op op);

}  // namespace railyard::mpi_shim
