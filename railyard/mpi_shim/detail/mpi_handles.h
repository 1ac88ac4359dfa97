// Owners of the MPI handles the shim makes: a communicator it duplicates,
// a group it looks at, an attribute key it registers. Each frees its handle
// through PMPI (the shim's own MPI calls never go through its wrappers), and
// only while MPI is still up: after MPI_Finalize every handle is gone with
// it.
#pragma once

#include <mpi.h>

#include <string>

#include "railyard/common/error.h"

namespace railyard::mpi_shim {

// An MPI call failed: call() names it, code() is its MPI error code.
class MpiError : public Error {
 public:
  MpiError(const char* call, int code);
};

// Throws MpiError when `rc` is not MPI_SUCCESS.
void check_mpi(int rc, const char* call);

// The text MPI gives an error code.
[[nodiscard]] std::string mpi_error_text(int code);

// Whether MPI has been initialised and not yet finalised.
[[nodiscard]] bool mpi_is_up() noexcept;

// A communicator of the shim's own (PMPI_Comm_dup), so that its traffic
// never meets the program's.
class OwnedComm {
 public:
  explicit OwnedComm(MPI_Comm parent);
  ~OwnedComm();
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  OwnedComm(OwnedComm&&) = delete;
  OwnedComm& operator=(OwnedComm&&) = delete;

  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// The group of a communicator (PMPI_Comm_group).
class OwnedGroup {
 public:
  explicit OwnedGroup(MPI_Comm comm);
  ~OwnedGroup();
  OwnedGroup(const OwnedGroup&) = delete;
  OwnedGroup& operator=(const OwnedGroup&) = delete;
  OwnedGroup(OwnedGroup&&) = delete;
  OwnedGroup& operator=(OwnedGroup&&) = delete;

  [[nodiscard]] MPI_Group get() const noexcept { return group_; }

 private:
  MPI_Group group_ = MPI_GROUP_NULL;
};

// An attribute key on communicators (PMPI_Comm_create_keyval), with the
// callbacks MPI calls when a communicator carrying it is duplicated or
// freed.
class CommKeyval {
 public:
  CommKeyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* erase);
  ~CommKeyval();
  CommKeyval(const CommKeyval&) = delete;
  CommKeyval& operator=(const CommKeyval&) = delete;
  CommKeyval(CommKeyval&&) = delete;
  CommKeyval& operator=(CommKeyval&&) = delete;

  [[nodiscard]] int get() const noexcept { return keyval_; }

 private:
  int keyval_ = MPI_KEYVAL_INVALID;
};

}  // namespace railyard::mpi_shim
