// How a Communicator behaves; every field can come from the environment
// (docs/environment.md, "Communicator").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "railyard/collectives/selection.h"

namespace railyard::comm {

// Whether ranks on the same host talk over shared memory (libfabric's shm).
enum class SharedMemoryMode {
  kAuto,  // when this host has other ranks; if it cannot, warn and use the rails
  kOn,    // the same, but a failure to set it up is an error
  kOff,   // every peer over the rails (the loopback interface for local ones)
};

[[nodiscard]] const char* to_string(SharedMemoryMode mode) noexcept;

struct CommunicatorOptions {
  // How long a blocking call (wait, send, recv, probe, split) waits before
  // it throws TimeoutError; unset waits as long as it takes (a dead peer
  // still ends it, with RemoteError). Each call can give its own.
  // RAILYARD_TIMEOUT: a duration, or "none" (the default).
  std::optional<std::chrono::milliseconds> timeout;

  // A thread of the library progresses the endpoint all the time, so
  // rendezvous transfers, one-sided operations and released requests move
  // on while every thread of the program computes (asynchronous progress).
  // It sleeps on the rails between completions, but it competes with the
  // program's threads for cores and for the endpoint, so small-message
  // latency grows. RAILYARD_PROGRESS_THREAD: 0 (the default) or 1.
  bool progress_thread = false;

  // Peers on the same host (same host identity, see host_identity.h) take
  // shared memory, the others the rails; the choice is per peer.
  // RAILYARD_SHM: auto (the default), on or off.
  SharedMemoryMode shared_memory = SharedMemoryMode::kAuto;
  // How much of each shared-memory region is faulted in when it is mapped
  // (mrail::HostRailOptions::prefault_bytes); unset: that default, 1 MiB.
  // RAILYARD_SHM_PREFAULT: a size (0: none).
  std::optional<std::uint64_t> shm_prefault;
  // Blocking allreduces take their same-host steps through a segment of
  // shared memory the host's ranks map (collectives/detail/host_segment.h),
  // unless shared memory is off. RAILYARD_HOST_SEGMENT: on (the default) or
  // off, which runs them over messages, as the non-blocking ones run.
  bool host_segment = true;

  // Which algorithm each collective runs: the built-in choice, and the
  // algorithms named for size ranges instead (collectives/selection.h).
  // RAILYARD_ALGO, e.g.
  // "allreduce:0-8k:recursive_doubling;allreduce:8k-inf:ring"; unset: the
  // built-in choice everywhere.
  collectives::AlgorithmTable algorithms;

  // The host this rank says it runs on, when not empty; else its host
  // identity (host_identity.h: RAILYARD_HOST_ID, or the host name and
  // network namespace). Ranks with equal ones are local to each other. For
  // ranks run as threads of one process that stand for ranks of several
  // hosts (tests); from_environment() leaves it empty.
  std::string host_id;

  // Settings of the layer that builds the world (the MPI shim's) that every
  // rank must share too, compared with the job-wide ones as the world forms
  // (comm/detail/job_settings.h): the variable, and its value as parsed.
  std::vector<std::pair<std::string, std::string>> caller_job_settings;

  // Throws ConfigError naming the first invalid variable.
  [[nodiscard]] static CommunicatorOptions from_environment();
};

}  // namespace railyard::comm
