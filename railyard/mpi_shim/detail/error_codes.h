// railyard's failures as MPI error codes: an error class per kind, added to
// MPI at MPI_Init so MPI_Error_string and MPI_Error_class name them, and the
// path from a caught exception to the communicator's error handler.
#pragma once

#include <mpi.h>

#include <utility>

namespace railyard::mpi_shim {

struct ErrorCodes {
  int usage = MPI_ERR_ARG;      // ranks called with arguments that do not match
  int remote = MPI_ERR_OTHER;   // a rank failed or could not be reached
  int aborted = MPI_ERR_OTHER;  // a rank aborted the railyard job
  int timeout = MPI_ERR_OTHER;  // RAILYARD_TIMEOUT passed
  int other = MPI_ERR_OTHER;    // anything else railyard reported
  // A code in each class whose string is the last such failure's whole
  // message (the ranks it names, what it waited for): what the handler
  // gets, so MPI_Error_string says it. -1 where MPI refused one.
  struct Detailed {
    int usage = -1;
    int remote = -1;
    int aborted = -1;
    int timeout = -1;
    int other = -1;
  } detailed;

  // Adds the classes to MPI (PMPI_Add_error_class); those MPI refuses stay
  // MPI's own codes above.
  [[nodiscard]] static ErrorCodes registered() noexcept;
};

// Within a catch block: the code of the exception being handled, logged
// once at error level with `call`, its message set as the string of its
// class's detailed code, then handed to `comm`'s error handler as MPI does.
// Returns the code (the handler may not return: MPI_ERRORS_ARE_FATAL ends
// the job).
int report_failure(const ErrorCodes& codes, MPI_Comm comm, const char* call) noexcept;

// Runs `carry` (a collective railyard carries); a failure becomes the MPI
// error code comm's error handler had (report_failure).
template <typename Carry>
int carried(const ErrorCodes& codes, MPI_Comm comm, const char* call, Carry&& carry) noexcept {
  try {
    std::forward<Carry>(carry)();
    return MPI_SUCCESS;
  } catch (...) {
    return report_failure(codes, comm, call);
  }
}

}  // namespace railyard::mpi_shim
