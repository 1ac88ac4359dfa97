// How a job bootstraps: which method, where the root is, the job's key and
// how long to wait. Every field can come from the environment
// (docs/environment.md, "Communicator and bootstrap").
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "railyard/rstream/channel_options.h"

namespace railyard::bootstrap {

enum class BootstrapMethod {
  kAuto,  // PMIx when a PMIx server answers, else the root when one is named
  kPmix,
  kRoot,
  kMpi,  // only through the MPI shim, which hands over its communicator
};

[[nodiscard]] const char* to_string(BootstrapMethod method) noexcept;

struct BootstrapOptions {
  static constexpr std::size_t kMaxJobKey = 256;

  // RAILYARD_BOOTSTRAP: auto, pmix, root or mpi.
  BootstrapMethod method = BootstrapMethod::kAuto;
  // Where rank 0 listens and the others connect, as an rstream address
  // ("host:port", "tcp://host:port", "verbs://host:port"). RAILYARD_ROOT.
  std::string root;
  // Shared by the ranks of one job; a connection presenting another is
  // refused. At most kMaxJobKey bytes. RAILYARD_JOB_KEY, default empty.
  std::string job_key;
  // How long ranks wait for each other: to connect, for the table, and the
  // default of every bootstrap call. RAILYARD_BOOTSTRAP_TIMEOUT, 60 s.
  std::chrono::milliseconds timeout{60'000};
  // The root method's channels (RAILYARD_RSTREAM_*).
  rstream::ChannelOptions channel;

  // Throws ConfigError naming the first invalid variable.
  [[nodiscard]] static BootstrapOptions from_environment();
};

// A fresh job key: 32 random bytes in hex, from the kernel's generator
// (railyard-run's jobs, the C API's unique ids).
[[nodiscard]] std::string random_job_key();

}  // namespace railyard::bootstrap
