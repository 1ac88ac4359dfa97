// Checks of the C API's arguments that C++ cannot make for it: null
// handles, enum values out of range, roots and peers outside the
// communicator. Each returns RAILYARD_SUCCESS or the failure it recorded.
// Internal.
#pragma once

#include <optional>

#include "railyard/c_api/detail/handles.h"
#include "railyard/collectives/datatype.h"

namespace railyard::c_api {

// The type and operation, when both are values of their enums.
[[nodiscard]] std::optional<collectives::DataType> data_type_of(railyard_datatype_t type) noexcept;
[[nodiscard]] std::optional<collectives::ReduceOp> reduce_op_of(railyard_op_t op) noexcept;

// comm is not NULL, and `rank` (when checked) is one of its ranks, or
// RAILYARD_ANY_SOURCE when `any` allows it.
railyard_result_t check_comm(railyard_comm_t comm, const char* function) noexcept;
railyard_result_t check_rank(railyard_comm_t comm, int rank, bool any, const char* function,
                             const char* what) noexcept;

}  // namespace railyard::c_api
