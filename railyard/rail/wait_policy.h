// How a thread with nothing to do waits for completions: spin a little (the
// cheapest way to catch a reply that is microseconds away), then sleep on the
// completion queue's wait object so an oversubscribed node keeps its cores.
#pragma once

#include <chrono>

namespace railyard::rail {

struct WaitPolicy {
  // Keep polling this long after the last completion before blocking.
  // From RAILYARD_SPIN_US; by default 100 us, or none on a host with more
  // ranks than cores (fit_to_host). Waking from a sleep costs tens of
  // microseconds, so a wait shorter than a network round trip must not
  // sleep: a spin near the round trip makes small-message latency bimodal.
  std::chrono::microseconds spin{100};
  // Longest single sleep; the waiter then re-polls even without a wake-up.
  std::chrono::milliseconds max_block{100};
  // Yield the core between polls while spinning. For hosts that run more
  // ranks than they have cores: a rank that spins there holds a core the
  // rank it waits for may need, until the scheduler takes it away (so every
  // wait on a peer cost the whole spin); yielding hands the core over at
  // once. Off: a yield is a system call on every poll, needless when every
  // rank has a core of its own. The Communicator sets it (comm/detail/world.cc).
  bool yield_while_spinning = false;
  // Whether yield_while_spinning was given (RAILYARD_SPIN_YIELD on or off)
  // rather than left to the Communicator's count of ranks and cores (auto).
  // Emulated hosts that share one machine's cores need it: each counts only
  // its own ranks.
  bool yield_given = false;
  // Whether spin was given (RAILYARD_SPIN_US) rather than left to the default.
  bool spin_given = false;

  // spin from RAILYARD_SPIN_US (0 to 1000000), yield from
  // RAILYARD_SPIN_YIELD (auto, on, off), max_block default.
  [[nodiscard]] static WaitPolicy from_environment();

  // Fits what the environment left open to a host that runs more ranks than
  // the cores they may run on (`oversubscribed`), or not: there, waits yield
  // while they spin and, by default, do not spin at all.
  void fit_to_host(bool oversubscribed);
};

}  // namespace railyard::rail
