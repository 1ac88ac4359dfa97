// The parts a multi-rail endpoint is made of, held together: each owns its
// own state and reaches the others through the core. The front
// (mrail/endpoint.h) holds the core and its lock; every part runs under that
// lock.
#pragma once

#include <cstdint>
#include <string>

#include "railyard/mrail/counters.h"
#include "railyard/mrail/detail/active_requests.h"
#include "railyard/mrail/detail/credit_flow.h"
#include "railyard/mrail/detail/failover_log.h"
#include "railyard/mrail/detail/path_monitor.h"
#include "railyard/mrail/detail/peer_table.h"
#include "railyard/mrail/detail/rail_resets.h"
#include "railyard/mrail/detail/rail_set.h"
#include "railyard/mrail/detail/receiver.h"
#include "railyard/mrail/detail/rendezvous.h"
#include "railyard/mrail/detail/rma.h"
#include "railyard/mrail/detail/sender.h"
#include "railyard/mrail/detail/transfer_lanes.h"
#include "railyard/mrail/options.h"
#include "railyard/rail/progress.h"

namespace railyard::mrail {
class Endpoint;
}  // namespace railyard::mrail

namespace railyard::mrail::detail {

struct Core {
  Core(Options endpoint_options, std::uint64_t endpoint_id, Endpoint& front);
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;
  Core(Core&&) = delete;
  Core& operator=(Core&&) = delete;
  ~Core() = default;

  // Counts a message dropped on `rail` and logs why.
  void drop(std::size_t rail, const std::string& why);
  // Reposts the handled receive buffers and sends the acknowledgements
  // owed: after a send has left, and as idle work.
  void repost();
  // What a wait does when it finds nothing (PollHint::on_idle), and
  // progress() after its round: repost(), the clock-driven path checks and
  // the rail resets due, kept off the path of every message.
  void idle_work();
  // Whether a rail still has sends or reads in the provider's hands, or
  // messages waiting for a send buffer: work only progress moves on.
  [[nodiscard]] bool outbound_pending() const noexcept;

  Options options;
  std::uint64_t id;
  // What the rails' waits look at: where the next message most likely
  // arrives (Receiver), the idle work, outside work.
  rail::PollHint poll_hint;
  EndpointCounters totals;

  // Declared in the order they are made; each part only keeps a reference
  // to the core until it is used.
  ActiveRequests requests;
  RailSet rails;
  PeerTable peers;
  CreditFlow credits;
  FailoverLog acks;
  PathMonitor paths;
  RailResets resets;
  Sender sender;
  Receiver receiver;
  Rendezvous rendezvous;
  TransferLanes lanes;
  Rma rma;
};

}  // namespace railyard::mrail::detail
