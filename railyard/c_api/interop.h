// C++ code on both sides of the C API: a Communicator handed to C as a
// railyard_comm_t, and a C++ exception turned into a railyard_result_t with
// this thread's message, as every railyard_* function does. For libraries
// that add C entry points of their own (the MPI shim's
// railyard_comm_init_mpi, language bindings).
#pragma once

#include <utility>

#include "railyard/c_api/railyard.h"
#include "railyard/comm/communicator.h"

namespace railyard::c_api {

// A new handle owning `communicator`; railyard_comm_destroy frees it.
[[nodiscard]] railyard_comm_t to_handle(comm::Communicator communicator);

// The result of the exception being handled, its message kept as this
// thread's last error. Call inside a catch block.
railyard_result_t fail_current(const char* function) noexcept;
// A result with a message of the caller's own (a null pointer, an enum out
// of range).
railyard_result_t fail(railyard_result_t result, const char* function,
                       const char* message) noexcept;
// Clears this thread's last error: the call succeeded.
railyard_result_t succeed() noexcept;

// Runs `body` (which returns nothing), mapping what it throws.
template <typename Body>
railyard_result_t guarded(const char* function, Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return succeed();
  } catch (...) {
    return fail_current(function);
  }
}

}  // namespace railyard::c_api
