// What the communicator's collective calls (collectives.cc) reach inside a
// Communicator: its team, and a collective started on it as a Request.
#pragma once

#include "railyard/collectives/collective.h"
#include "railyard/collectives/team.h"
#include "railyard/comm/communicator.h"
#include "railyard/comm/request.h"

namespace railyard::comm::detail {

struct CollectiveAccess {
  [[nodiscard]] static const collectives::Team& team(const Communicator& comm) noexcept;
  // The request of `call` on `comm`, with the algorithm `options` names or
  // the table's choice; its first transfers are posted before it returns.
  [[nodiscard]] static Request start(const Communicator& comm, const collectives::Call& call,
                                     const collectives::CollectiveOptions& options);
};

}  // namespace railyard::comm::detail
