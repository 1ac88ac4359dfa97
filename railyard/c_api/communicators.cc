// Making, splitting and freeing communicators through the C API.
#include <memory>

#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/c_api/detail/handles.h"
#include "railyard/c_api/detail/unique_id.h"
#include "railyard/comm/communicator_options.h"

namespace rc = railyard::comm;
using railyard::c_api::fail;
using railyard::c_api::guarded;

// The handle C holds: owned by the caller until railyard_comm_destroy.
railyard_comm_t railyard::c_api::to_handle(rc::Communicator communicator) {
  return std::make_unique<railyard_comm>(railyard_comm{std::move(communicator)}).release();
}

extern "C" {

railyard_result_t railyard_comm_init(railyard_comm_t* comm) {
  if (comm == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_comm_init", "comm is NULL");
  }
  *comm = nullptr;
  return guarded("railyard_comm_init",
                 [&] { *comm = railyard::c_api::to_handle(rc::Communicator::world()); });
}

railyard_result_t railyard_get_unique_id(railyard_unique_id_t* id) {
  if (id == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_get_unique_id", "id is NULL");
  }
  return guarded("railyard_get_unique_id", [&] { *id = railyard::c_api::make_unique_id(); });
}

railyard_result_t railyard_comm_init_rank(railyard_comm_t* comm, int nranks,
                                          const railyard_unique_id_t* id, int rank) {
  constexpr const char* kFunction = "railyard_comm_init_rank";
  if (comm == nullptr || id == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, kFunction, "comm or id is NULL");
  }
  *comm = nullptr;
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    return fail(RAILYARD_INVALID_ARGUMENT, kFunction,
                "rank must be 0 to nranks - 1, and nranks at least 1");
  }
  return guarded(kFunction, [&] {
    const railyard::c_api::UniqueId parsed = railyard::c_api::parse_unique_id(*id);
    railyard::bootstrap::BootstrapOptions options =
        railyard::bootstrap::BootstrapOptions::from_environment();
    options.root = parsed.address;
    options.job_key = parsed.job_key;
    // Rank 0 takes the listener its process opened for the id, before any
    // rank can be waiting on another.
    std::optional<railyard::rstream::Listener> listener;
    if (rank == 0) {
      listener.emplace(railyard::c_api::take_listener(parsed));
    }
    *comm = railyard::c_api::to_handle(rc::Communicator::world(
        rc::CommunicatorOptions::from_environment(),
        [&](std::span<const std::byte> card) -> std::unique_ptr<railyard::bootstrap::Bootstrap> {
          if (listener) {
            return std::make_unique<railyard::bootstrap::RootBootstrap>(std::move(*listener),
                                                                        nranks, card, options);
          }
          return std::make_unique<railyard::bootstrap::RootBootstrap>(rank, nranks, card, options);
        },
        options.timeout));
  });
}

railyard_result_t railyard_comm_dup(railyard_comm_t comm, railyard_comm_t* out) {
  if (comm == nullptr || out == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_comm_dup", "comm or out is NULL");
  }
  *out = nullptr;
  return guarded("railyard_comm_dup",
                 [&] { *out = railyard::c_api::to_handle(comm->communicator.dup()); });
}

railyard_result_t railyard_comm_split(railyard_comm_t comm, int color, int key,
                                      railyard_comm_t* out) {
  if (comm == nullptr || out == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_comm_split", "comm or out is NULL");
  }
  *out = nullptr;
  return guarded("railyard_comm_split", [&] {
    std::optional<rc::Communicator> made = comm->communicator.split(color, key);
    if (made) {
      *out = railyard::c_api::to_handle(std::move(*made));
    }
  });
}

railyard_result_t railyard_comm_destroy(railyard_comm_t comm) {
  return guarded("railyard_comm_destroy",
                 [&] { const std::unique_ptr<railyard_comm> owned(comm); });
}

railyard_result_t railyard_comm_abort(railyard_comm_t comm, int code, const char* reason) {
  if (comm == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_comm_abort", "comm is NULL");
  }
  return guarded("railyard_comm_abort", [&] {
    comm->communicator.abort(code, reason != nullptr ? reason : "railyard_comm_abort");
  });
}

railyard_result_t railyard_comm_rank(railyard_comm_t comm, int* rank) {
  if (comm == nullptr || rank == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_comm_rank", "comm or rank is NULL");
  }
  *rank = comm->communicator.rank();
  return railyard::c_api::succeed();
}

railyard_result_t railyard_comm_size(railyard_comm_t comm, int* size) {
  if (comm == nullptr || size == nullptr) {
    return fail(RAILYARD_INVALID_ARGUMENT, "railyard_comm_size", "comm or size is NULL");
  }
  *size = comm->communicator.size();
  return railyard::c_api::succeed();
}

}  // extern "C"
