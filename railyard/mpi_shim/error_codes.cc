#include "railyard/mpi_shim/detail/error_codes.h"

#include <exception>
#include <string>

#include <fmt/format.h>

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

// A code of `error_class` for detailed messages; -1 when MPI refuses one.
int add_code(int error_class) noexcept {
  int code = -1;
  return PMPI_Add_error_code(error_class, &code) == MPI_SUCCESS ? code : -1;
}

// `detailed` (of `fallback`'s class) with "railyard: <call>: <what>" as its
// string, cut to what MPI holds; `fallback` when there is none.
int with_message(int detailed, int fallback, const char* call, const char* what) noexcept {
  if (detailed < 0) {
    return fallback;
  }
  try {
    std::string text = fmt::format("railyard: {}: {}", call, what);
    if (text.size() >= MPI_MAX_ERROR_STRING) {
      text.resize(MPI_MAX_ERROR_STRING - 4);
      text += "...";
    }
    // MPI_Add_error_string takes a non-const string in MPI 3 headers; a
    // second call replaces the string the first set.
    if (PMPI_Add_error_string(detailed, text.data()) == MPI_SUCCESS) {
      return detailed;
    }
  } catch (...) {
  }
  return fallback;
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
  // Codes of MPI's own classes would carry railyard's text into them: only
  // classes railyard added get a detailed code.
  const auto detailed = [](int error_class, int fallback) {
    return error_class == fallback ? -1 : add_code(error_class);
  };
  codes.detailed.usage = detailed(codes.usage, MPI_ERR_ARG);
  codes.detailed.remote = detailed(codes.remote, MPI_ERR_OTHER);
  codes.detailed.aborted = detailed(codes.aborted, MPI_ERR_OTHER);
  codes.detailed.timeout = detailed(codes.timeout, MPI_ERR_OTHER);
  codes.detailed.other = detailed(codes.other, MPI_ERR_OTHER);
  return codes;
}

int report_failure(const ErrorCodes& codes, MPI_Comm comm, const char* call) noexcept {
  int code = codes.other;
  try {
    throw;
  } catch (const railyard::AbortError& error) {
    code = with_message(codes.detailed.aborted, codes.aborted, call, error.what());
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const railyard::RemoteError& error) {
    code = with_message(codes.detailed.remote, codes.remote, call, error.what());
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const railyard::TimeoutError& error) {
    code = with_message(codes.detailed.timeout, codes.timeout, call, error.what());
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const railyard::UsageError& error) {
    code = with_message(codes.detailed.usage, codes.usage, call, error.what());
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (const std::exception& error) {
    code = with_message(codes.detailed.other, codes.other, call, error.what());
    log::error("MPI shim: {}: {}", call, error.what());
  } catch (...) {
    log::error("MPI shim: {}: an unknown failure", call);
  }
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

}  // namespace railyard::mpi_shim
