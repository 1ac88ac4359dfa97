#include "railyard/mrail/detail/endpoint_core.h"

#include <utility>

#include "railyard/common/detail/log.h"

namespace railyard::mrail::detail {

Core::Core(Options endpoint_options, std::uint64_t endpoint_id, Endpoint& front)
    : options(std::move(endpoint_options)),
      id(endpoint_id),
      requests(front),
      rails(*this),
      peers(*this),
      credits(*this),
      acks(*this),
      paths(*this),
      resets(*this),
      sender(*this),
      receiver(*this),
      rendezvous(*this),
      lanes(*this),
      rma(*this) {}

void Core::drop(std::size_t rail, const std::string& why) {
  ++totals.dropped_messages;
  ++rails[rail].traffic.errors;
  log::error("multi-rail endpoint {:016x}, rail {}: message dropped: {}", id, rail, why);
}

void Core::repost() {
  rails.repost();
  acks.flush_if_due();  // off the path of the message that made them due, too
}

bool Core::outbound_pending() const noexcept {
  for (std::size_t rail = 0; rail < rails.size(); ++rail) {
    const RailState& state = rails[rail];
    if (!state.queue.empty() || state.rail->has_unannounced_work()) {
      return true;
    }
  }
  return false;
}

void Core::idle_work() {
  repost();
  paths.check();
  resets.run_if_due();
}

}  // namespace railyard::mrail::detail
