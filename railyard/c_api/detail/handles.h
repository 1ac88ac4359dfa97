// What the C API's opaque handles hold, and the one path from a C++
// exception to a railyard_result_t (with this thread's message). Internal.
#pragma once

#include <exception>
#include <utility>

#include "railyard/c_api/railyard.h"
#include "railyard/comm/communicator.h"
#include "railyard/comm/request.h"

struct railyard_comm {
  railyard::comm::Communicator communicator;
};

struct railyard_request {
  railyard::comm::Request request;
};

namespace railyard::c_api {

// The result of the exception being handled, its message kept as this
// thread's last error. Call inside a catch block.
railyard_result_t fail_current(const char* function) noexcept;
// A result with a message of the C API's own (a null pointer, an enum out
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
