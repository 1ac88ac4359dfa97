// Driving several rails from one thread until something is done.
#pragma once

#include <chrono>
#include <functional>
#include <span>

#include "railyard/transports/wait_policy.h"

namespace railyard {

class Rail;

// Progresses every rail until done() returns true or `timeout` passes, and
// returns done(). Polls without pause while completions arrive and for
// policy.spin after the last one, then sleeps on the rails' wait objects (at
// most policy.max_block at a time), so an idle waiter costs no CPU.
bool progress_until(std::span<Rail* const> rails, const std::function<bool()>& done,
                    std::chrono::nanoseconds timeout, const WaitPolicy& policy);

}  // namespace railyard
