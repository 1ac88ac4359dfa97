// Running one subject: a client and a server process placed in the two
// emulated hosts (or both on this host), measuring with a time limit.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_transport.h"
#include "measure.h"

namespace railyard::bench {

struct Hosts {
  std::string netns_a;  // empty: this host's namespace
  std::string netns_b;
  std::vector<std::string> rails_a;
  std::vector<std::string> rails_b;
  std::vector<std::string> subnets;  // for Open MPI's interface selection
  // The CPU each host's process runs on (--bind), Open MPI's ranks too;
  // unset, the scheduler places them. Both emulated hosts share this
  // machine's cores: bound, neither can be moved onto the other's core.
  std::optional<unsigned> cpu_a;
  std::optional<unsigned> cpu_b;
};

struct Subject {
  enum class Kind { kRawRail, kParallelRails, kRailyard, kCommunicator, kOfiMrail, kOpenMpi };
  std::string name;
  Kind kind = Kind::kRailyard;
  std::string policy_table;  // kRailyard, kCommunicator: FI_OFI_MRAIL_CONFIG
  bool tagged = true;        // kOfiMrail
  // Rail provider of railyard's subjects; empty: RAILYARD_PROVIDER's.
  std::string provider;
  // Variables set in both processes before anything opens (--setting).
  std::vector<std::pair<std::string, std::string>> environment;
};

struct SubjectResult {
  std::string name;
  Subject::Kind kind = Subject::Kind::kRailyard;
  std::vector<Measurement> rows;
  std::vector<RailBytes> rails;
  std::string error;  // why the subject did not finish
  // Over several rounds: the rounds it failed in, and why (the figures are
  // the other rounds').
  std::vector<std::string> round_failures;
  // Over several rounds: each finished round's own rows, in round order
  // (rows holds their combination), so that the spread can be seen.
  std::vector<std::vector<Measurement>> round_rows;
  // How it was started, in enough detail to start it again by hand.
  std::string launch;
};

// Whether a subject is a baseline railyard is compared with (raw, parallel,
// ofi_mrail, openmpi), as opposed to one of railyard's own.
[[nodiscard]] bool is_baseline(Subject::Kind kind) noexcept;

// How run_subject starts `subject`: the namespaces, addresses, provider and
// the environment its processes get.
[[nodiscard]] std::string launch_of(const Subject& subject, const Hosts& hosts);

// Never takes longer than `limit`: a subject that hangs (ofi_mrail's
// untagged path does) is killed and reported as such.
[[nodiscard]] SubjectResult run_subject(const Subject& subject, const Hosts& hosts,
                                        const MeasureSettings& settings,
                                        std::chrono::seconds limit);

}  // namespace railyard::bench
