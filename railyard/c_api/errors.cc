// The C API's results, messages, version and in-place marker.
#include <fmt/format.h>

#include <new>
#include <string>

#include "railyard/c_api/detail/handles.h"
#include "railyard/comm/collectives.h"
#include "railyard/common/error.h"

namespace railyard::c_api {
namespace {

thread_local std::string last_error;

railyard_result_t classify() noexcept {
  try {
    throw;
  } catch (const railyard::AbortError&) {
    return RAILYARD_ABORTED;
  } catch (const railyard::RemoteError&) {
    return RAILYARD_REMOTE_ERROR;
  } catch (const railyard::TimeoutError&) {
    return RAILYARD_TIMEOUT;
  } catch (const railyard::UsageError&) {
    return RAILYARD_USAGE_ERROR;
  } catch (const ConfigError&) {
    return RAILYARD_CONFIG_ERROR;
  } catch (const Error&) {
    return RAILYARD_SYSTEM_ERROR;
  } catch (const std::bad_alloc&) {
    return RAILYARD_SYSTEM_ERROR;
  } catch (...) {
    return RAILYARD_INTERNAL_ERROR;
  }
}

}  // namespace

railyard_result_t fail_current(const char* function) noexcept {
  const railyard_result_t result = classify();
  try {
    try {
      throw;
    } catch (const std::exception& error) {
      last_error = fmt::format("{}: {}", function, error.what());
    } catch (...) {
      last_error = fmt::format("{}: an unknown failure", function);
    }
  } catch (...) {
    last_error.clear();  // no memory left for the message
  }
  return result;
}

railyard_result_t fail(railyard_result_t result, const char* function,
                       const char* message) noexcept {
  try {
    last_error = fmt::format("{}: {}", function, message);
  } catch (...) {
    last_error.clear();
  }
  return result;
}

railyard_result_t succeed() noexcept {
  last_error.clear();
  return RAILYARD_SUCCESS;
}

}  // namespace railyard::c_api

extern "C" {

const char* railyard_strerror(railyard_result_t result) {
  switch (result) {
    case RAILYARD_SUCCESS:
      return "success";
    case RAILYARD_INVALID_ARGUMENT:
      return "invalid argument";
    case RAILYARD_CONFIG_ERROR:
      return "invalid configuration";
    case RAILYARD_USAGE_ERROR:
      return "the ranks used the call in a way it does not allow";
    case RAILYARD_REMOTE_ERROR:
      return "a rank failed or could not be reached";
    case RAILYARD_ABORTED:
      return "a rank aborted the job";
    case RAILYARD_TIMEOUT:
      return "the operation timed out";
    case RAILYARD_SYSTEM_ERROR:
      return "a system or libfabric call failed";
    case RAILYARD_INTERNAL_ERROR:
      return "internal error";
  }
  return "unknown result";
}

const char* railyard_last_error(void) { return railyard::c_api::last_error.c_str(); }

railyard_result_t railyard_version(int* major, int* minor, int* patch) {
  if (major != nullptr) {
    *major = RAILYARD_VERSION_MAJOR;
  }
  if (minor != nullptr) {
    *minor = RAILYARD_VERSION_MINOR;
  }
  if (patch != nullptr) {
    *patch = RAILYARD_VERSION_PATCH;
  }
  return railyard::c_api::succeed();
}

const void* railyard_in_place(void) { return railyard::comm::kInPlace; }

}  // extern "C"
