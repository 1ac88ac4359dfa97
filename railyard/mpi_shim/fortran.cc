// Fortran's entry points. Open MPI 4.1's Fortran bindings (mpif.h, `use
// mpi`, `use mpi_f08`) call PMPI_* directly, so a program in Fortran never
// reaches the C wrappers: the shim defines the Fortran symbols too, in each
// of gfortran's and other compilers' spellings (mpi_allreduce_,
// mpi_allreduce, mpi_allreduce__, MPI_ALLREDUCE) and Open MPI's
// `use mpi_f08` one (mpi_allreduce_f08_, whose handles are the same
// integers and whose ierror may be absent). Handles come through
// PMPI_*_f2c; MPI_IN_PLACE and MPI_BOTTOM are the addresses of Fortran
// sentinels that libmpi exports, not the C constants. The non-blocking
// forms' requests complete in Fortran's MPI_WAIT family, which calls PMPI
// directly: through MPI's progress engine (progress_hook.h), or, in an MPI
// without one, not at all, so there they stay with MPI.
#include <mpi.h>

#include <type_traits>

#include "railyard/mpi_shim/detail/blocking_collectives.h"
#include "railyard/mpi_shim/detail/nonblocking_collectives.h"
#include "railyard/mpi_shim/detail/shim.h"

// Every name in this file is fixed by the Fortran ABI (gfortran's and other
// compilers' spellings, some with two underscores), and every argument is
// a pointer because Fortran passes by reference, as MPI's Fortran bindings
// declare them.
// NOLINTBEGIN(readability-identifier-naming,bugprone-reserved-identifier,readability-non-const-parameter)

// The sentinels' common blocks, in the spellings compilers give them; weak,
// so a libmpi without one of them leaves it null.
extern "C" {
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
}

namespace railyard::mpi_shim {
namespace {

bool is_in_place(const void* buffer) {
  return buffer != nullptr &&
         (buffer == &mpi_fortran_in_place_ || buffer == &mpi_fortran_in_place ||
          buffer == &mpi_fortran_in_place__ || buffer == &MPI_FORTRAN_IN_PLACE);
}

bool is_bottom(const void* buffer) {
  return buffer != nullptr && (buffer == &mpi_fortran_bottom_ || buffer == &mpi_fortran_bottom ||
                               buffer == &mpi_fortran_bottom__ || buffer == &MPI_FORTRAN_BOTTOM);
}

// A Fortran buffer argument as C takes it.
void* c_buffer(void* buffer) {
  if (is_in_place(buffer)) {
    return MPI_IN_PLACE;
  }
  return is_bottom(buffer) ? MPI_BOTTOM : buffer;
}

// A request as Fortran holds it.
void set_request(MPI_Fint* request, MPI_Request started) { *request = PMPI_Request_c2f(started); }

// `use mpi_f08` passes no ierror when the program gave none.
void set_error(MPI_Fint* ierror, int code) {
  if (ierror != nullptr) {
    *ierror = static_cast<MPI_Fint>(code);
  }
}

}  // namespace
}  // namespace railyard::mpi_shim

namespace shim = railyard::mpi_shim;

static_assert(std::is_same_v<MPI_Fint, int>,
              "the v-forms pass Fortran's INTEGER count arrays to C as int arrays");

// Each Fortran spelling of `name`, as aliases of name_.
#define RAILYARD_FORTRAN_SPELLINGS(name, upper, parameters)   \
  void name parameters __attribute__((alias(#name "_")));     \
  void name##__ parameters __attribute__((alias(#name "_"))); \
  void upper parameters __attribute__((alias(#name "_")));    \
  void name##_f08_ parameters __attribute__((alias(#name "_")));

extern "C" {

void mpi_init_(MPI_Fint* ierror) {
  const int rc = PMPI_Init(nullptr, nullptr);
  shim::set_error(ierror, rc != MPI_SUCCESS ? rc : shim::Shim::instance().start());
}
RAILYARD_FORTRAN_SPELLINGS(mpi_init, MPI_INIT, (MPI_Fint * ierror))

void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  int given = MPI_THREAD_SINGLE;
  const int rc = PMPI_Init_thread(nullptr, nullptr, *required, &given);
  *provided = static_cast<MPI_Fint>(given);
  shim::set_error(ierror, rc != MPI_SUCCESS ? rc : shim::Shim::instance().start());
}
RAILYARD_FORTRAN_SPELLINGS(mpi_init_thread, MPI_INIT_THREAD,
                           (MPI_Fint * required, MPI_Fint* provided, MPI_Fint* ierror))

void mpi_allreduce_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                    MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror, shim::allreduce(shim::c_buffer(sendbuf), shim::c_buffer(recvbuf), *count,
                                          PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                                          PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_allreduce, MPI_ALLREDUCE,
                           (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierror))

void mpi_reduce_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                 MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror, shim::reduce(shim::c_buffer(sendbuf), shim::c_buffer(recvbuf), *count,
                                       PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), *root,
                                       PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_reduce, MPI_REDUCE,
                           (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierror))

void mpi_bcast_(void* buffer, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* root, MPI_Fint* comm,
                MPI_Fint* ierror) {
  shim::set_error(ierror, shim::bcast(shim::c_buffer(buffer), *count, PMPI_Type_f2c(*datatype),
                                      *root, PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_bcast, MPI_BCAST,
                           (void* buffer, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* root,
                            MPI_Fint* comm, MPI_Fint* ierror))

void mpi_allgather_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                    MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror,
                  shim::allgather(shim::c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                                  shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype),
                                  PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_allgather, MPI_ALLGATHER,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                            MPI_Fint* ierror))

void mpi_reduce_scatter_block_(void* sendbuf, void* recvbuf, MPI_Fint* recvcount,
                               MPI_Fint* datatype, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror,
                  shim::reduce_scatter_block(shim::c_buffer(sendbuf), shim::c_buffer(recvbuf),
                                             *recvcount, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                                             PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
                           (void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierror))

void mpi_alltoall_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                   MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror,
                  shim::alltoall(shim::c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                                 shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype),
                                 PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_alltoall, MPI_ALLTOALL,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                            MPI_Fint* ierror))

void mpi_barrier_(MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror, shim::barrier(PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_barrier, MPI_BARRIER, (MPI_Fint * comm, MPI_Fint* ierror))

void mpi_gather_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                 MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
                 MPI_Fint* ierror) {
  shim::set_error(ierror,
                  shim::gather(shim::c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                               shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype), *root,
                               PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_gather, MPI_GATHER,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
                            MPI_Fint* ierror))

void mpi_scatter_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                  MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
                  MPI_Fint* ierror) {
  shim::set_error(
      ierror, shim::scatter(shim::c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                            shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype), *root,
                            PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_scatter, MPI_SCATTER,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm,
                            MPI_Fint* ierror))

// The v-forms' count and displacement arrays are Fortran INTEGER arrays,
// which are C ints wherever MPI_Fint is one (static_assert above).

void mpi_allgatherv_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                     MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* comm,
                     MPI_Fint* ierror) {
  shim::set_error(ierror, shim::allgatherv(shim::c_buffer(sendbuf), *sendcount,
                                           PMPI_Type_f2c(*sendtype), shim::c_buffer(recvbuf),
                                           recvcounts, displs, PMPI_Type_f2c(*recvtype),
                                           PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_allgatherv, MPI_ALLGATHERV,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype,
                            MPI_Fint* comm, MPI_Fint* ierror))

void mpi_alltoallv_(void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype,
                    void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype,
                    MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(ierror, shim::alltoallv(shim::c_buffer(sendbuf), sendcounts, sdispls,
                                          PMPI_Type_f2c(*sendtype), shim::c_buffer(recvbuf),
                                          recvcounts, rdispls, PMPI_Type_f2c(*recvtype),
                                          PMPI_Comm_f2c(*comm), __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_alltoallv, MPI_ALLTOALLV,
                           (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls,
                            MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcounts,
                            MPI_Fint* rdispls, MPI_Fint* recvtype, MPI_Fint* comm,
                            MPI_Fint* ierror))

void mpi_reduce_scatter_(void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* datatype,
                         MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierror) {
  shim::set_error(
      ierror, shim::reduce_scatter(shim::c_buffer(sendbuf), shim::c_buffer(recvbuf), recvcounts,
                                   PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm),
                                   __builtin_return_address(0)));
}
RAILYARD_FORTRAN_SPELLINGS(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
                           (void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* comm, MPI_Fint* ierror))

// The non-blocking forms: as the blocking ones, plus the request.

void mpi_iallreduce_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype,
                     MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc = shim::iallreduce(shim::c_buffer(sendbuf), shim::c_buffer(recvbuf), *count,
                                  PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm),
                                  &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_iallreduce, MPI_IALLREDUCE,
                           (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror))

void mpi_ireduce_(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                  MPI_Fint* root, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc = shim::ireduce(shim::c_buffer(sendbuf), shim::c_buffer(recvbuf), *count,
                               PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), *root,
                               PMPI_Comm_f2c(*comm), &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_ireduce, MPI_IREDUCE,
                           (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* request,
                            MPI_Fint* ierror))

void mpi_ibcast_(void* buffer, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* root, MPI_Fint* comm,
                 MPI_Fint* request, MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc = shim::ibcast(shim::c_buffer(buffer), *count, PMPI_Type_f2c(*datatype), *root,
                              PMPI_Comm_f2c(*comm), &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_ibcast, MPI_IBCAST,
                           (void* buffer, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* root,
                            MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror))

void mpi_iallgather_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                     MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* request,
                     MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc =
      shim::iallgather(shim::c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                       shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype),
                       PMPI_Comm_f2c(*comm), &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_iallgather, MPI_IALLGATHER,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                            MPI_Fint* request, MPI_Fint* ierror))

void mpi_ireduce_scatter_block_(void* sendbuf, void* recvbuf, MPI_Fint* recvcount,
                                MPI_Fint* datatype, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request,
                                MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc = shim::ireduce_scatter_block(
      shim::c_buffer(sendbuf), shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*datatype),
      PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK,
                           (void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* datatype,
                            MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror))

void mpi_ialltoall_(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                    MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* request,
                    MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc =
      shim::ialltoall(shim::c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                      shim::c_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype),
                      PMPI_Comm_f2c(*comm), &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_ialltoall, MPI_IALLTOALL,
                           (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
                            MPI_Fint* request, MPI_Fint* ierror))

void mpi_ibarrier_(MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror) {
  MPI_Request started = MPI_REQUEST_NULL;
  const int rc =
      shim::ibarrier(PMPI_Comm_f2c(*comm), &started, {__builtin_return_address(0), true});
  shim::set_request(request, started);
  shim::set_error(ierror, rc);
}
RAILYARD_FORTRAN_SPELLINGS(mpi_ibarrier, MPI_IBARRIER,
                           (MPI_Fint * comm, MPI_Fint* request, MPI_Fint* ierror))

}  // extern "C"

// NOLINTEND(readability-identifier-naming,bugprone-reserved-identifier,readability-non-const-parameter)
