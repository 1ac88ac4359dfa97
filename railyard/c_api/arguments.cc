#include "railyard/c_api/detail/arguments.h"

#include <fmt/format.h>

namespace railyard::c_api {

std::optional<collectives::DataType> data_type_of(railyard_datatype_t type) noexcept {
  if (type < RAILYARD_INT8 || type > RAILYARD_FLOAT64) {
    return std::nullopt;
  }
  // The C enum lists the types in collectives::DataType's order.
  return static_cast<collectives::DataType>(type);
}

std::optional<collectives::ReduceOp> reduce_op_of(railyard_op_t op) noexcept {
  if (op < RAILYARD_SUM || op > RAILYARD_BXOR) {
    return std::nullopt;
  }
  return static_cast<collectives::ReduceOp>(op);
}

railyard_result_t check_comm(railyard_comm_t comm, const char* function) noexcept {
  return comm == nullptr ? fail(RAILYARD_INVALID_ARGUMENT, function, "comm is NULL")
                         : RAILYARD_SUCCESS;
}

railyard_result_t check_rank(railyard_comm_t comm, int rank, bool any, const char* function,
                             const char* what) noexcept {
  if (const railyard_result_t checked = check_comm(comm, function)) {
    return checked;
  }
  const int size = comm->communicator.size();
  if ((any && rank == RAILYARD_ANY_SOURCE) || (rank >= 0 && rank < size)) {
    return RAILYARD_SUCCESS;
  }
  try {
    const std::string message =
        fmt::format("{} {} is not a rank of this communicator of {}{}", what, rank, size,
                    any ? " (nor RAILYARD_ANY_SOURCE)" : "");
    return fail(RAILYARD_INVALID_ARGUMENT, function, message.c_str());
  } catch (...) {
    return fail(RAILYARD_INVALID_ARGUMENT, function, "a rank outside the communicator");
  }
}

}  // namespace railyard::c_api
