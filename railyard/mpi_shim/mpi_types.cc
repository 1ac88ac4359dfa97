#include "railyard/mpi_shim/detail/mpi_types.h"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <utility>

namespace railyard::mpi_shim {
namespace {

using collectives::DataType;
using collectives::ReduceOp;

enum class Kind : std::uint8_t { kSigned, kUnsigned, kFloat, kByte };

// The predefined types reductions take. MPI_Datatype handles are addresses
// of MPI's own objects, so the table is built once MPI is loaded.
struct NamedType {
  MPI_Datatype handle;
  Kind kind;
};

const std::array kNamedTypes{
    NamedType{MPI_SIGNED_CHAR, Kind::kSigned},
    NamedType{MPI_SHORT, Kind::kSigned},
    NamedType{MPI_INT, Kind::kSigned},
    NamedType{MPI_LONG, Kind::kSigned},
    NamedType{MPI_LONG_LONG, Kind::kSigned},
    NamedType{MPI_INT8_T, Kind::kSigned},
    NamedType{MPI_INT16_T, Kind::kSigned},
    NamedType{MPI_INT32_T, Kind::kSigned},
    NamedType{MPI_INT64_T, Kind::kSigned},
    NamedType{MPI_AINT, Kind::kSigned},
    NamedType{MPI_OFFSET, Kind::kSigned},
    NamedType{MPI_COUNT, Kind::kSigned},
    NamedType{MPI_INTEGER, Kind::kSigned},
    NamedType{MPI_INTEGER1, Kind::kSigned},
    NamedType{MPI_INTEGER2, Kind::kSigned},
    NamedType{MPI_INTEGER4, Kind::kSigned},
    NamedType{MPI_INTEGER8, Kind::kSigned},
    NamedType{MPI_UNSIGNED_CHAR, Kind::kUnsigned},
    NamedType{MPI_UNSIGNED_SHORT, Kind::kUnsigned},
    NamedType{MPI_UNSIGNED, Kind::kUnsigned},
    NamedType{MPI_UNSIGNED_LONG, Kind::kUnsigned},
    NamedType{MPI_UNSIGNED_LONG_LONG, Kind::kUnsigned},
    NamedType{MPI_UINT8_T, Kind::kUnsigned},
    NamedType{MPI_UINT16_T, Kind::kUnsigned},
    NamedType{MPI_UINT32_T, Kind::kUnsigned},
    NamedType{MPI_UINT64_T, Kind::kUnsigned},
    NamedType{MPI_FLOAT, Kind::kFloat},
    NamedType{MPI_DOUBLE, Kind::kFloat},
    NamedType{MPI_REAL, Kind::kFloat},
    NamedType{MPI_REAL4, Kind::kFloat},
    NamedType{MPI_REAL8, Kind::kFloat},
    NamedType{MPI_DOUBLE_PRECISION, Kind::kFloat},
    NamedType{MPI_BYTE, Kind::kByte},
};

std::optional<DataType> integer_of(Kind kind, int size) {
  const bool is_signed = kind == Kind::kSigned;
  switch (size) {
    case 1:
      return is_signed ? DataType::kInt8 : DataType::kUint8;
    case 2:
      return is_signed ? DataType::kInt16 : DataType::kUint16;
    case 4:
      return is_signed ? DataType::kInt32 : DataType::kUint32;
    case 8:
      return is_signed ? DataType::kInt64 : DataType::kUint64;
    default:
      return std::nullopt;
  }
}

std::optional<ReduceOp> op_of(MPI_Op op) {
  const std::array<std::pair<MPI_Op, ReduceOp>, 7> ops{{{MPI_SUM, ReduceOp::kSum},
                                                        {MPI_PROD, ReduceOp::kProd},
                                                        {MPI_MIN, ReduceOp::kMin},
                                                        {MPI_MAX, ReduceOp::kMax},
                                                        {MPI_BAND, ReduceOp::kBand},
                                                        {MPI_BOR, ReduceOp::kBor},
                                                        {MPI_BXOR, ReduceOp::kBxor}}};
  for (const auto& [handle, mine] : ops) {
    if (handle == op) {
      return mine;
    }
  }
  return std::nullopt;
}

std::string type_name(MPI_Datatype type) {
  std::array<char, MPI_MAX_OBJECT_NAME> name{};
  int length = 0;
  if (PMPI_Type_get_name(type, name.data(), &length) != MPI_SUCCESS || length == 0) {
    return "a datatype without a name";
  }
  return {name.data(), static_cast<std::size_t>(length)};
}

}  // namespace

std::variant<std::size_t, Declined> dense_bytes(MPI_Datatype type, int count) {
  if (count < 0) {
    return Declined{.why = Declined::Why::kNegativeCount, .first = count};
  }
  int size = 0;
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS) {
    return Declined{.why = Declined::Why::kInvalidType};
  }
  if (lb != 0 || true_lb != 0 || extent != size || true_extent != size) {
    return Declined{.why = Declined::Why::kGaps,
                    .type = type,
                    .first = size,
                    .second = extent,
                    .third = true_extent};
  }
  return static_cast<std::size_t>(size) * static_cast<std::size_t>(count);
}

std::variant<Reduction, Declined> reduction_of(MPI_Datatype type, MPI_Op op) {
  const std::optional<ReduceOp> mine = op_of(op);
  if (!mine) {
    return Declined{.why = Declined::Why::kUnsupportedOp};
  }
  for (const NamedType& named : kNamedTypes) {
    if (named.handle != type || type == MPI_DATATYPE_NULL) {
      continue;
    }
    int size = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS) {
      break;
    }
    std::optional<DataType> element;
    if (named.kind == Kind::kFloat) {
      element = size == 4   ? std::optional(DataType::kFloat32)
                : size == 8 ? std::optional(DataType::kFloat64)
                            : std::nullopt;
    } else if (named.kind == Kind::kByte) {
      if (!collectives::is_bitwise(*mine)) {
        return Declined{.why = Declined::Why::kByteArithmetic};
      }
      element = DataType::kUint8;
    } else {
      element = integer_of(named.kind, size);
    }
    if (!element) {
      break;
    }
    if (collectives::is_bitwise(*mine) && !collectives::is_integer(*element)) {
      return Declined{.why = Declined::Why::kBitwiseNotInteger, .type = type};
    }
    return Reduction{*element, *mine};
  }
  return Declined{.why = Declined::Why::kNotReducible, .type = type};
}

std::string Declined::describe() const {
  switch (why) {
    case Why::kNegativeCount:
      return fmt::format("count {} (MPI reports it)", first);
    case Why::kInvalidType:
      return "an invalid datatype (MPI reports it)";
    case Why::kGaps:
      return fmt::format("{} has gaps or a shifted start (size {}, extent {}, true extent {})",
                         type_name(type), first, second, third);
    case Why::kUnsupportedOp:
      return "a user-defined operation or one railyard does not reduce with (MINLOC, MAXLOC, "
             "logical, REPLACE)";
    case Why::kByteArithmetic:
      return "MPI_BYTE with an arithmetic operation (MPI reports it)";
    case Why::kBitwiseNotInteger:
      return fmt::format("a bitwise operation on {} (MPI reports it)", type_name(type));
    case Why::kNotReducible:
      return fmt::format("{} is not a predefined integer or floating-point type", type_name(type));
    case Why::kBlockSizesDiffer:
      return fmt::format("send blocks of {} bytes and receive blocks of {} (MPI reports it)", first,
                         second);
    case Why::kNegativeDisplacement:
      return fmt::format("displacement {} for rank {}, before the buffer's start", second, first);
    case Why::kFortranWaitsBypassShim:
      return "a non-blocking collective from Fortran, whose waits call PMPI_Wait directly, and "
             "this MPI has no progress hook (opal_progress_register) through which they would "
             "complete railyard's request";
  }
  return "an unknown reason";
}

}  // namespace railyard::mpi_shim
