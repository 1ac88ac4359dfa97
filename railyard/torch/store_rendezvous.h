// How the railyard process groups of a torch job find each other: through
// the c10d Store torch hands every backend (env://, tcp:// and file://
// alike), whatever started the ranks. docs/pytorch.md, "How ranks meet".
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <span>

#include "railyard/comm/communicator.h"

namespace railyard::pytorch {

// The job's world, for torch's default group: rank 0 listens (on
// RAILYARD_UNIQUE_ID_HOST, else MASTER_ADDR when it is one of its
// addresses, else its first interface) and publishes its address and a
// fresh job key in `store`; every rank joins through it as the ranks of a
// railyard job do (bootstrap/root_bootstrap.h), with its host's rails.
// Communicator options come from the environment; `timeout` bounds the
// calls the communicator makes on its own when RAILYARD_TIMEOUT does not.
// Throws what Communicator::world throws; c10::Error when the store has
// something else under railyard's key.
[[nodiscard]] comm::Communicator join_world(c10d::Store& store, int rank, int size,
                                            std::chrono::milliseconds timeout);

// A communicator of the world ranks `ranks` (a sub-group torch formed with
// new_group, in its order), this rank among them, made from `world`: its
// members agree on its context id through `store` (the new group's own).
[[nodiscard]] comm::Communicator form_group(const comm::Communicator& world, c10d::Store& store,
                                            std::span<const int> ranks);

}  // namespace railyard::pytorch
