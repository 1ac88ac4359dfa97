// Rail resets (docs/architecture.md, "Rail failover"). A path that goes
// down with reads or writes still posted over it (a dead link holds them
// for minutes, and one that finished late would write into a buffer handed
// back to its owner, here or at the peer) schedules a reset of its rail;
// idle work carries it out, outside the rails' progress: every other
// peer's path on the rail goes down first, the rail closes and reopens
// (Rail::reset), the reads and writes end canceled and go again over the
// paths left, and every peer with a path to the rail is told (kRailReset),
// so that it takes its path down and resends what the old connection lost;
// a peer that had writes from us in flight resets its end too
// (kFlagWritesInFlight).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/wire.h"

namespace railyard::mrail::detail {

struct Core;

class RailResets {
 public:
  explicit RailResets(Core& core) noexcept : core_(core) {}

  // A reset of `rail` for `reason`; one not `required` is skipped when
  // nothing is held on the rail any more by then.
  void schedule(std::size_t rail, std::string reason, bool required = false);
  // The resets scheduled (idle work).
  void run_if_due() {
    if (due_) {
      run();
    }
  }
  // A peer reset its rail: our path to it goes down.
  void on_notice(Peer& peer, const Header& header, std::size_t rail);

 private:
  void run();
  void reset(std::size_t rail, const std::string& reason, bool required);

  Core& core_;
  bool due_ = false;                // some rail has a reset scheduled
  std::uint32_t notices_sent_ = 0;  // numbers them (RailResetNotice::number)
};

}  // namespace railyard::mrail::detail
