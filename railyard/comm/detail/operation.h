// One send or receive of a Communicator, or one collective: what a Request
// owns while it is in flight.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "railyard/collectives/task.h"
#include "railyard/collectives/transfer.h"
#include "railyard/comm/detail/group.h"
#include "railyard/comm/request.h"
#include "railyard/mrail/request.h"

namespace railyard::comm::detail {

// One isend or irecv, or one collective (`collective` set, `request` idle).
// As a collective's transfer, the collectives hold it as a Transfer::State.
struct Operation final : collectives::Transfer::State {
  // A constructor of its own, so that making one does not zero the
  // endpoint's request before that request's constructor runs.
  Operation(std::shared_ptr<const Group> group_held, bool receiving, int peer_rank, int user_tag,
            std::size_t buffer_bytes) noexcept;

  // The one reference an operation takes: every message takes and drops
  // it, so it is one atomic count, not one for the group and one for the
  // world (the group holds the world). A released operation drops it
  // (World::adopt): the world it belongs to owns it then.
  std::shared_ptr<const Group> group;
  World* world;
  mrail::Request request;
  collectives::CollectiveTask collective;
  const char* collective_name = nullptr;  // "allreduce", for messages
  bool receive = false;
  int peer = -1;             // group rank: the destination, or the source asked for (-1: any)
  int tag = 0;               // sends: the tag sent; receives: the tag asked for (-1: any)
  std::size_t capacity = 0;  // receives: the buffer's size

  // Whether it has finished, well or not. A collective is stepped (which
  // may post its next transfers), so this is called by the thread that
  // waits for it.
  [[nodiscard]] bool done() noexcept override {
    return collective ? collective.step() : request.done();
  }
  [[nodiscard]] bool is_collective() const noexcept { return static_cast<bool>(collective); }
  // A collective's transfer, finished: the bytes it moved (throws the
  // typed error of a failed one).
  std::size_t finish() override;
  [[nodiscard]] int transfer_peer() const noexcept override { return peer; }
  [[nodiscard]] bool is_receive() const noexcept override { return receive; }
  // Logs why a released operation failed, if it did.
  void log_failure() const noexcept;
};

// Posts `operation`, a send or receive of `bytes` at `data` on tag `wire`
// (receives: ignoring the bits of `ignore`), to its world's endpoint.
// Throws the typed error of one the endpoint refuses; `what` names the call.
void post(Operation& operation, void* data, std::size_t bytes, std::uint64_t wire,
          std::uint64_t ignore, const char* what);
// Fills `status` from a finished send or receive; throws its typed error
// when it failed.
void complete(const Operation& operation, Status& status);
// Waits until `operation` finishes, up to `timeout`: TimeoutError naming it,
// then `afterwards`, when the time passes.
void await(Operation& operation, std::chrono::milliseconds timeout, const char* afterwards);
// An unfinished operation and whom it waits for: "receive from rank 2 (tag
// 5, context 0)", "allreduce (context 0); at its exchange 3 it was still
// waiting to receive from rank 1".
[[nodiscard]] std::string describe_pending(const Operation& operation);
// How long a wait given no timeout waits: the communicator's timeout, else
// without end.
[[nodiscard]] std::chrono::milliseconds wait_timeout(const Operation& operation) noexcept;

}  // namespace railyard::comm::detail
