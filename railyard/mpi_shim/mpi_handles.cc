#include "railyard/mpi_shim/detail/mpi_handles.h"

#include <fmt/format.h>

#include <array>

#include "railyard/common/detail/log.h"

namespace railyard::mpi_shim {

MpiError::MpiError(const char* call, int code)
    : Error(call, code,
            fmt::format("{} failed with MPI error {} ({})", call, code, mpi_error_text(code))) {}

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    throw MpiError(call, rc);
  }
}

std::string mpi_error_text(int code) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  if (PMPI_Error_string(code, text.data(), &length) != MPI_SUCCESS) {
    return "unknown error code";
  }
  return {text.data(), static_cast<std::size_t>(length)};
}

bool mpi_is_up() noexcept {
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

OwnedComm::OwnedComm(MPI_Comm parent) { check_mpi(PMPI_Comm_dup(parent, &comm_), "MPI_Comm_dup"); }

OwnedComm::~OwnedComm() {
  if (comm_ != MPI_COMM_NULL && mpi_is_up()) {
    const int rc = PMPI_Comm_free(&comm_);
    if (rc != MPI_SUCCESS) {
      log::warn("MPI shim: MPI_Comm_free of its own communicator failed: {}", mpi_error_text(rc));
    }
  }
}

OwnedGroup::OwnedGroup(MPI_Comm comm) {
  check_mpi(PMPI_Comm_group(comm, &group_), "MPI_Comm_group");
}

OwnedGroup::~OwnedGroup() {
  if (group_ != MPI_GROUP_NULL && mpi_is_up()) {
    (void)PMPI_Group_free(&group_);
  }
}

CommKeyval::CommKeyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* erase) {
  check_mpi(PMPI_Comm_create_keyval(copy, erase, &keyval_, nullptr), "MPI_Comm_create_keyval");
}

CommKeyval::~CommKeyval() {
  if (keyval_ != MPI_KEYVAL_INVALID && mpi_is_up()) {
    (void)PMPI_Comm_free_keyval(&keyval_);
  }
}

}  // namespace railyard::mpi_shim
