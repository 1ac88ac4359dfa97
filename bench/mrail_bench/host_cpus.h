// --bind: the CPU each emulated host's process runs on.
#pragma once

#include <optional>
#include <string>

#include "subject.h"

namespace railyard::bench {

// `text` is `none` (the scheduler places both processes) or `A,B`: host a's
// process (and Open MPI's rank 0) on CPU A, host b's on CPU B, two distinct
// CPUs this process may run on. Sets hosts.cpu_a and hosts.cpu_b; throws
// ConfigError naming --bind, the value and what was expected.
void parse_host_cpus(const std::string& text, Hosts& hosts);

// The CPUs this process may run on, as a comma list ("0,1").
[[nodiscard]] std::string own_cpus();

// Empty when a process that reported `cpus` (a comma list) ran where --bind
// asked (`cpu`; unset: anywhere), else why not, naming `process`.
[[nodiscard]] std::string binding_mismatch(const std::string& process, const std::string& cpus,
                                           const std::optional<unsigned>& cpu);

}  // namespace railyard::bench
