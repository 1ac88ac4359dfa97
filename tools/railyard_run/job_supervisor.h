// Runs a job's ranks to the end: forwards their output with rank prefixes,
// reaps them, and stops them all (SIGTERM to each rank's process group,
// SIGKILL after the grace period) when one fails (after a second in which
// the others may end by themselves, saying what they saw), at the timeout,
// or when the launcher is interrupted (SIGINT, SIGTERM, SIGHUP). Every
// process is reaped before it returns: none is left behind.
#pragma once

#include <vector>

#include "launch_plan.h"

namespace railyard::run {

// The exit statuses the launcher gives for its own reasons, as timeout(1)
// and shells do.
inline constexpr int kTimedOutStatus = 124;
inline constexpr int kCannotExecuteStatus = 127;

// Starts every rank of `plan` and supervises them. Returns the first
// non-zero rank status; else 124 when the timeout stopped the job, 128 +
// the signal when one interrupted it; else 0. What it does is reported on
// stderr with the "railyard-run: " prefix. Throws Error when a rank cannot
// start (the ranks already started are stopped first).
[[nodiscard]] int run_job(const LaunchOptions& options, const std::vector<RankLaunch>& plan);

}  // namespace railyard::run
