/* How long this process has existed: the kernel's start time of the process
 * (/proc/self/stat, clock ticks since boot) against CLOCK_BOOTTIME. The tick
 * is 10 ms on most kernels, so the figure is that coarse. Shared by the
 * bootstrap benchmark and its baselines (C, so the MPI baseline needs no
 * C++). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds since this process started; -1 when /proc cannot say. */
double railyard_process_age_ms(void);

#ifdef __cplusplus
}
#endif
