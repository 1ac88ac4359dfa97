#include "railyard/mpi_shim/detail/error_codes.h"

#include <exception>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::mpi_shim {
namespace {

int add_class(int fallback, const char* text) noexcept {
  int code = 0;
  if (PMPI_Add_error_class(&code) != MPI_SUCCESS) {
    return fallback;
  }
  // MPI_Add_error_string takes a non-const string in MPI 3 headers.
  if (PMPI_Add_error_string(code, const_cast<char*>(text)) != MPI_SUCCESS) {  // NOLINT
    return fallback;
  }
  return code;
}

}  // namespace

ErrorCodes ErrorCodes::registered() noexcept {
  ErrorCodes codes;
  codes.usage = add_class(
      MPI_ERR_ARG, "railyard: the ranks called a collective with arguments that do not match");
  codes.remote = add_class(MPI_ERR_OTHER, "railyard: a rank failed or could not be reached");
  codes.aborted = add_class(MPI_ERR_OTHER, "railyard: a rank aborted the job");
  codes.timeout = add_class(MPI_ERR_OTHER, "railyard: the operation ran past RAILYARD_TIMEOUT");
  codes.other = add_class(MPI_ERR_OTHER, "railyard: the operation failed");
  return codes;
}

int report_failure(const ErrorCodes& codes, MPI_Comm comm, const char* call) noexcept {
  int code = codes.other;
  try {
    throw;
  } catch (const railyard::AbortError& error) {
    code = codes.aborted;
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const railyard::RemoteError& error) {
    code = codes.remote;
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const railyard::TimeoutError& error) {
    code = codes.timeout;
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const railyard::UsageError& error) {
    code = codes.usage;
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const std::exception& error) {
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (...) {
    log::error("MPI shim: {}: an unknown failure", call);
  }
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

}  // namespace railyard::mpi_shim
