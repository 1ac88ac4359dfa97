// How long this process has existed: the kernel's start time of the process
// (/proc/self/stat, clock ticks since boot) against CLOCK_BOOTTIME. The
// tick is 10 ms on most kernels, so the figure is that coarse.
#pragma once

#include <chrono>
#include <optional>

namespace railyard::bench {

// Milliseconds since this process started; none when /proc cannot say.
[[nodiscard]] std::optional<double> ms_since_process_start();

}  // namespace railyard::bench
