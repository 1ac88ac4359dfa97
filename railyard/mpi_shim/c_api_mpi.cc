// railyard_comm_init_mpi: a railyard world of an MPI communicator's ranks,
// bootstrapped over it in the same failure-aware rounds as the shim's own
// world (world_collectives.h).
#include "railyard/mpi_shim/railyard_mpi.h"

#include <memory>

#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/mpi_bootstrap.h"
#include "railyard/c_api/interop.h"
#include "railyard/comm/communicator_options.h"
#include "railyard/common/error.h"
#include "railyard/mpi_shim/detail/world_collectives.h"

namespace rc = railyard::comm;
namespace shim = railyard::mpi_shim;

extern "C" railyard_result_t railyard_comm_init_mpi(MPI_Comm comm, railyard_comm_t* out) {
  constexpr const char* kFunction = "railyard_comm_init_mpi";
  if (out == nullptr) {
    return railyard::c_api::fail(RAILYARD_INVALID_ARGUMENT, kFunction, "out is NULL");
  }
  *out = nullptr;
  int inter = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0) {
    return railyard::c_api::fail(RAILYARD_INVALID_ARGUMENT, kFunction,
                                 "comm is not an intra-communicator");
  }
  return railyard::c_api::guarded(kFunction, [&] {
    const rc::CommunicatorOptions options = rc::CommunicatorOptions::from_environment();
    const auto timeout = railyard::bootstrap::BootstrapOptions::from_environment().timeout;
    auto collectives = std::make_shared<shim::WorldCollectives>(comm);
    std::optional<rc::Communicator> world;
    try {
      world = rc::Communicator::world(
          options,
          [&](std::span<const std::byte> card) {
            return std::make_unique<railyard::bootstrap::MpiBootstrap>(
                shim::bootstrap_view(collectives), card);
          },
          timeout);
      (void)collectives->allgather({});  // every rank has its part
    } catch (...) {
      world.reset();
      collectives->fail_rounds();
      throw;
    }
    *out = railyard::c_api::to_handle(std::move(*world));
  });
}
