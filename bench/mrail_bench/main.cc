// railyard-mrail-bench: point-to-point latency and bandwidth of railyard's
// multi-rail endpoint under each policy, side by side in one run with one raw
// rail, every rail in parallel (what the rails can carry), libfabric's
// ofi_mrail over the same addresses, and Open MPI's TCP transport.
//
// Run it under scripts/netns-rails.sh to measure across emulated hosts:
//   scripts/netns-rails.sh --rails 4 --rate 1gbit -- build/release/bin/railyard-mrail-bench
// Without namespaces it measures over loopback rails of this host.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "baseline_check.h"
#include "host_cpus.h"
#include "openmpi_runner.h"
#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/mrail/policy_table.h"
#include "railyard/rail/rail_options.h"
#include "round_order.h"
#include "rounds.h"
#include "setting_subjects.h"
#include "subject.h"
#include "tools/support/comma_list.h"
#include "tools/support/command_line.h"
#include "tools/support/report.h"
#include "tools/support/tool_main.h"

namespace railyard::bench {
namespace {

using tools::size_text;

const SubjectResult* find(const std::vector<SubjectResult>& results, const std::string& name) {
  for (const auto& result : results) {
    if (result.name == name && result.error.empty()) {
      return &result;
    }
  }
  return nullptr;
}

void print_table(const std::vector<SubjectResult>& results, const std::vector<std::uint64_t>& sizes,
                 const char* title, const std::function<double(const Measurement&)>& value,
                 int precision) {
  std::vector<const SubjectResult*> shown;
  for (const auto& result : results) {
    if (result.error.empty() &&
        std::any_of(result.rows.begin(), result.rows.end(),
                    [&](const Measurement& row) { return value(row) >= 0; })) {
      shown.push_back(&result);
    }
  }
  if (shown.empty()) {
    return;
  }
  // Columns as wide as the longest name (subject@provider can be long).
  std::size_t width = 12;
  for (const auto* result : shown) {
    width = std::max(width, result->name.size());
  }
  std::cout << "# " << title << "\n# " << fmt::format("{:>9}", "size");
  for (const auto* result : shown) {
    std::cout << fmt::format(" {:>{}}", result->name, width);
  }
  std::cout << "\n";
  for (const auto size : sizes) {
    std::string line = fmt::format("  {:>9}", size_text(size));
    bool any = false;
    for (const auto* result : shown) {
      const Measurement* row = row_for(*result, size);
      if (row != nullptr && value(*row) >= 0) {
        line += fmt::format(" {:>{}.{}f}", value(*row), width, precision);
        any = true;
      } else {
        line += fmt::format(" {:>{}}", "-", width);
      }
    }
    if (any) {
      std::cout << line << "\n";
    }
  }
  std::cout << "#\n";
}

// How many of each subject's launches ran in the slow state (see
// slow_launches), so a reader can tell a subject's slow rounds from the
// machine's.
constexpr double kSlowLaunchFactor = 1.2;

void print_slow_launches(const std::vector<SubjectResult>& results) {
  std::string line;
  for (const auto& result : results) {
    const SlowLaunches launches = slow_launches(result, kSlowLaunchFactor);
    if (result.error.empty() && launches.measured != 0) {
      line += fmt::format("{}{} {}/{}", line.empty() ? "" : ", ", result.name, launches.slow,
                          launches.measured);
    }
  }
  if (!line.empty()) {
    std::cout << fmt::format(
        "# Slow launches (latency above {}x the subject's lowest at most sizes): {}\n#\n",
        kSlowLaunchFactor, line);
  }
}

// min, mean and where the min is, of numerator/denominator over a size range.
struct RatioSummary {
  double min = 0;
  double mean = 0;
  std::uint64_t at = 0;
  std::size_t count = 0;
};

// Summarises `value_at(size)` (a ratio, or nothing) over the sizes of
// [low, high]: for latency the largest ratio is the interesting extreme,
// for bandwidth the smallest.
template <typename ValueAt>
std::optional<RatioSummary> summarise(const std::vector<std::uint64_t>& sizes, std::uint64_t low,
                                      std::uint64_t high, bool latency, ValueAt value_at) {
  RatioSummary summary;
  double total = 0;
  for (const auto size : sizes) {
    if (size < low || size > high) {
      continue;
    }
    const std::optional<double> value = value_at(size);
    if (!value) {
      continue;
    }
    if (summary.count == 0 || (latency ? *value > summary.min : *value < summary.min)) {
      summary.min = *value;
      summary.at = size;
    }
    total += *value;
    ++summary.count;
  }
  if (summary.count == 0) {
    return std::nullopt;
  }
  summary.mean = total / static_cast<double>(summary.count);
  return summary;
}

// numerator/denominator of the combined figures, the best numerator's.
std::optional<RatioSummary> ratio(const std::vector<SubjectResult>& results,
                                  const std::vector<std::uint64_t>& sizes,
                                  const std::vector<std::string>& numerators,
                                  const std::string& denominator, std::uint64_t low,
                                  std::uint64_t high, bool latency) {
  const SubjectResult* base = find(results, denominator);
  if (base == nullptr) {
    return std::nullopt;
  }
  return summarise(sizes, low, high, latency, [&](std::uint64_t size) -> std::optional<double> {
    const Measurement* b = row_for(*base, size);
    double best = -1;
    for (const auto& name : numerators) {
      const SubjectResult* subject = find(results, name);
      const Measurement* n = subject != nullptr ? row_for(*subject, size) : nullptr;
      if (n == nullptr || b == nullptr) {
        continue;
      }
      const double value =
          latency ? (n->latency_us > 0 && b->latency_us > 0 ? n->latency_us / b->latency_us : -1)
                  : n->bandwidth_mbps / b->bandwidth_mbps;
      if (value > 0 && (best < 0 || (latency ? value < best : value > best))) {
        best = value;
      }
    }
    return best < 0 ? std::nullopt : std::optional<double>(best);
  });
}

// The latency ratio of each round's own figures (paired_latency_ratio).
std::optional<RatioSummary> paired_ratio(const std::vector<SubjectResult>& results,
                                         const std::vector<std::uint64_t>& sizes,
                                         const std::vector<std::string>& numerators,
                                         const std::string& denominator, std::uint64_t low,
                                         std::uint64_t high) {
  const SubjectResult* base = find(results, denominator);
  std::vector<const SubjectResult*> tops;
  for (const auto& name : numerators) {
    if (const SubjectResult* subject = find(results, name); subject != nullptr) {
      tops.push_back(subject);
    }
  }
  if (base == nullptr || tops.empty()) {
    return std::nullopt;
  }
  return summarise(sizes, low, high, true,
                   [&](std::uint64_t size) { return paired_latency_ratio(tops, *base, size); });
}

// The command line as a shell would take it back: arguments with anything
// but plain characters are quoted.
std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];  // NOLINT(cppcoreguidelines-pro-bounds-pointer-arithmetic)
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_.,:/=+@%") == std::string::npos;
    out += (i == 0 ? "" : " ") + (plain ? arg : "'" + arg + "'");
  }
  return out;
}

// Reports each baseline whose figures cannot be a baseline's (see
// baseline_check.h) as failed, so no ratio rests on it.
void reject_misconfigured(std::vector<SubjectResult>& results, const std::string& one_rail) {
  const SubjectResult* rail = find(results, one_rail);
  std::vector<std::pair<std::size_t, std::string>> rejected;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (is_baseline(results[i].kind)) {
      if (auto why = misconfiguration(results[i], rail)) {
        rejected.emplace_back(i, std::move(*why));
      }
    }
  }
  // After the checks: the raw rail itself may be among the rejected.
  for (auto& [index, why] : rejected) {
    results[index].error = std::move(why);
  }
}

int run(int argc, char** argv) {
  const std::string invoked = command_line(argc, argv);
  std::string min_size = "1";
  std::string max_size = "16m";
  std::string sizes_flag;
  std::string policies = "fixed,round-robin,striping";
  std::vector<std::string> tables;
  std::vector<std::string> setting_entries;
  std::string compare = "raw,parallel,ofi_mrail,openmpi";
  std::string json_path;
  std::size_t window = 64;
  std::size_t timeout_s = 60;
  std::size_t subject_limit_s = 600;
  std::size_t ofi_mrail_limit_s = 20;
  std::size_t rounds = 1;
  std::size_t latency_iterations = MeasureSettings{}.latency_iterations;
  bool communicator = false;
  bool bidirectional = false;
  std::string rma = "none";
  std::string providers = rail::default_provider();
  Hosts hosts;
  hosts.netns_a = env::get_or("RAILYARD_NETNS_A", "");
  hosts.netns_b = env::get_or("RAILYARD_NETNS_B", "");
  std::string rails_a = env::get_or("RAILYARD_RAILS_A", "127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4");
  std::string rails_b = env::get_or("RAILYARD_RAILS_B", rails_a);
  std::string subnets = env::get_or("RAILYARD_RAIL_SUBNETS", "");
  std::string bind = "none";
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  // The MPI program sits beside this tool; the agent script is in the source
  // tree for a build, in share/railyard for an install.
  OpenMpiSetup openmpi{(self.parent_path() / "railyard-mpi-bandwidth").string(),
                       RAILYARD_BENCH_AGENT_INSTALLED};
  if (std::filesystem::exists(RAILYARD_BENCH_AGENT_SOURCE)) {
    openmpi.agent = RAILYARD_BENCH_AGENT_SOURCE;
  }

  CLI::App app{"Multi-rail point-to-point latency and bandwidth, railyard against baselines"};
  app.add_option("--min-size", min_size, "smallest size (doubling up to --max-size)")
      ->capture_default_str();
  app.add_option("--max-size", max_size, "largest size")->capture_default_str();
  app.add_option("--sizes", sizes_flag, "explicit comma list of sizes instead (e.g. 8,4k,64k,1m)");
  app.add_option("--window", window, "transfers in flight per bandwidth window")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--policies", policies,
                 "railyard policies to measure: fixed, round-robin, striping, default "
                 "(1024:fixed,16384:round-robin,ULONG_MAX:striping)")
      ->capture_default_str();
  app.add_option(
      "--table", tables,
      "NAME=TABLE: also measure railyard with this FI_OFI_MRAIL_CONFIG table as subject "
      "NAME (repeatable), e.g. rr-medium=256:fixed,16384:round-robin,ULONG_MAX:striping");
  app.add_option("--setting", setting_entries,
                 "NAME=VARIABLE=VALUE: also measure railyard with the default table and this "
                 "RAILYARD_* or FI_* variable set, as subject NAME, against the default table "
                 "without it (repeat a NAME to set several), e.g. "
                 "nofailover=RAILYARD_RAIL_TIMEOUT=0");
  app.add_option("--compare", compare, "baselines: raw, parallel, ofi_mrail, openmpi (or none)")
      ->capture_default_str();
  app.add_option("--timeout", timeout_s, "seconds any single wait may take")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app.add_option("--subject-timeout", subject_limit_s, "seconds one subject may take in all")
      ->capture_default_str()
      ->check(CLI::Range(1, 36000));
  app.add_option("--ofi-mrail-timeout", ofi_mrail_limit_s,
                 "seconds ofi_mrail gets (it is known to hang)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app.add_option("--rounds", rounds,
                 "run every subject this many times, interleaved, keeping each bandwidth's "
                 "median and each latency's lowest (noise then cannot fall on one subject alone)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--latency-iterations", latency_iterations,
                 "timed ping-pongs per latency run up to 8 KiB (as osu_latency; fewer above)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  app.add_option("--netns-a", hosts.netns_a, "namespace of host a (default RAILYARD_NETNS_A)");
  app.add_option("--netns-b", hosts.netns_b, "namespace of host b (default RAILYARD_NETNS_B)");
  app.add_option("--rails-a", rails_a, "host a's rail addresses (default RAILYARD_RAILS_A)");
  app.add_option("--rails-b", rails_b, "host b's rail addresses (default RAILYARD_RAILS_B)");
  app.add_option("--subnets", subnets, "rail subnets for Open MPI (default RAILYARD_RAIL_SUBNETS)");
  app.add_option("--bind", bind,
                 "none, or A,B: every subject's host-a process (Open MPI's rank 0 too, by a "
                 "rankfile) runs on CPU A only and its host-b process on CPU B, so that the "
                 "scheduler cannot place both on one core")
      ->capture_default_str();
  app.add_option("--mpi-program", openmpi.program, "the MPI bandwidth program")
      ->capture_default_str();
  app.add_option("--mpi-agent", openmpi.agent, "mpirun-netns-agent.sh")->capture_default_str();
  app.add_option("--json", json_path, "also write every result to this JSON file");
  app.add_option("--providers", providers,
                 "libfabric providers of railyard's subjects (raw, parallel, the policies), "
                 "measured in one run: with several, each such subject runs once per provider, "
                 "named <subject>@<provider>, and the first provider is the others' baseline")
      ->capture_default_str();
  app.add_flag("--communicator", communicator,
               "also measure each policy through a Communicator of two ranks (comm-<policy>), "
               "beside the endpoint it is built on");
  app.add_flag("--bidirectional", bidirectional,
               "both sides send a window at once (as osu_bibw); bandwidth is both directions' sum");
  app.add_option("--rma", rma,
                 "put or get: railyard's subjects move each window by RMA into or out of the "
                 "other side's registered buffer, flushed once per window (as osu_put_bw, "
                 "osu_get_bw); no latency is measured for them. The baselines still send "
                 "messages: the rails' capacity the RMA is compared with")
      ->capture_default_str();
  if (const auto status =
          railyard::tools::parse_command_line(app, argc, argv, "railyard-mrail-bench: ")) {
    return *status;
  }

  MeasureSettings settings;
  settings.window = window;
  settings.bidirectional = bidirectional;
  if (rma == "put" || rma == "get") {
    settings.rma = rma == "put" ? RmaMode::kPut : RmaMode::kGet;
    if (communicator) {
      throw ConfigError("--rma", rma, "expected no --communicator with it (windows are not timed)");
    }
  } else if (rma != "none") {
    throw ConfigError("--rma", rma, "expected put, get or none");
  }
  settings.latency_iterations = latency_iterations;
  settings.timeout = std::chrono::seconds(timeout_s);
  if (!sizes_flag.empty()) {
    for (const auto& text : tools::comma_list("--sizes", sizes_flag)) {
      settings.sizes.push_back(parse_size("--sizes", text));
    }
  } else {
    const auto low = parse_size("--min-size", min_size);
    const auto high = parse_size("--max-size", max_size);
    if (high < low || high > (std::uint64_t{1} << 30)) {
      throw ConfigError("--max-size", max_size, "expected a size from --min-size up to 1g");
    }
    for (std::uint64_t size = low; size <= high; size = size == 0 ? 1 : size * 2) {
      settings.sizes.push_back(size);
    }
  }
  hosts.rails_a = tools::comma_list("--rails-a", rails_a);
  hosts.rails_b = tools::comma_list("--rails-b", rails_b);
  if (!subnets.empty()) {
    hosts.subnets = tools::comma_list("--subnets", subnets);
  }
  parse_host_cpus(bind, hosts);
  const auto baselines =
      compare == "none" ? std::vector<std::string>{} : tools::comma_list("--compare", compare);

  const auto provider_list = tools::comma_list("--providers", providers);
  for (const auto& provider : provider_list) {
    if (provider.find(' ') != std::string::npos ||
        std::count(provider_list.begin(), provider_list.end(), provider) != 1) {
      throw ConfigError("--providers", providers,
                        "expected distinct libfabric provider names such as tcp;ofi_rxm,net");
    }
  }
  // With one provider the names stay as they always were.
  const auto named = [&](const std::string& subject, const std::string& provider) {
    return provider_list.size() == 1 ? subject : subject + "@" + provider;
  };

  std::vector<Subject> subjects;
  const auto wants = [&](const char* name) {
    return std::find(baselines.begin(), baselines.end(), name) != baselines.end();
  };
  for (const auto& baseline : baselines) {
    if (baseline != "raw" && baseline != "parallel" && baseline != "ofi_mrail" &&
        baseline != "openmpi") {
      throw ConfigError("--compare", compare, "expected raw, parallel, ofi_mrail, openmpi or none");
    }
  }
  // Providers interleave within each subject, so the subjects compared
  // with each other run next to each other in every round.
  std::vector<std::string> measured_per_provider;
  const auto per_provider = [&](const std::string& name, Subject::Kind kind,
                                const std::string& table) {
    measured_per_provider.push_back(name);
    for (const auto& provider : provider_list) {
      subjects.push_back({named(name, provider), kind, table, true, provider, {}});
    }
  };
  if (wants("raw")) {
    per_provider("raw", Subject::Kind::kRawRail, "");
  }
  if (wants("parallel")) {
    per_provider("parallel", Subject::Kind::kParallelRails, "");
  }
  for (const auto& policy : tools::comma_list("--policies", policies)) {
    const std::string table = policy == "default" ? mrail::PolicyTable::kDefault : "-1:" + policy;
    (void)mrail::PolicyTable::parse("--policies", table);  // reject unknown policies now
    per_provider(policy, Subject::Kind::kRailyard, table);
    if (communicator) {
      per_provider("comm-" + policy, Subject::Kind::kCommunicator, table);
    }
  }
  std::vector<std::string> table_names;  // of --table subjects, in order
  for (const auto& entry : tables) {
    const auto equals = entry.find('=');
    const std::string name = entry.substr(0, equals);
    if (equals == std::string::npos || name.empty() || equals + 1 == entry.size()) {
      throw ConfigError("--table", entry, "expected NAME=TABLE, e.g. rr=-1:round-robin");
    }
    const std::string table = entry.substr(equals + 1);
    (void)mrail::PolicyTable::parse("--table", table);  // reject a bad table now
    if (std::any_of(subjects.begin(), subjects.end(),
                    [&](const Subject& subject) { return subject.name == name; })) {
      throw ConfigError(
          "--table", entry,
          fmt::format("expected a subject name not already measured ('{}' is)", name));
    }
    per_provider(name, Subject::Kind::kRailyard, table);
    if (communicator) {
      per_provider("comm-" + name, Subject::Kind::kCommunicator, table);
    }
    table_names.push_back(name);
  }
  // --setting subjects: the default table with their variables, compared
  // with the default table (measured too, when --policies lacks it).
  const std::vector<SettingSubject> setting_subjects = parse_setting_subjects(setting_entries);
  if (!setting_subjects.empty() &&
      std::none_of(subjects.begin(), subjects.end(), [&](const auto& s) {
        return s.name == named("default", provider_list.front());
      })) {
    per_provider("default", Subject::Kind::kRailyard, mrail::PolicyTable::kDefault);
  }
  for (const auto& setting : setting_subjects) {
    if (std::any_of(subjects.begin(), subjects.end(),
                    [&](const Subject& subject) { return subject.name == setting.name; })) {
      throw ConfigError(
          "--setting", setting.name,
          fmt::format("expected a subject name not already measured ('{}' is)", setting.name));
    }
    const std::size_t first = subjects.size();
    per_provider(setting.name, Subject::Kind::kRailyard, mrail::PolicyTable::kDefault);
    for (std::size_t i = first; i < subjects.size(); ++i) {
      subjects[i].environment = setting.environment;
    }
    table_names.push_back(setting.name);
  }
  if (wants("ofi_mrail")) {
    subjects.push_back(
        {"ofi_mrail", Subject::Kind::kOfiMrail, "", true, provider_list.front(), {}});
    subjects.push_back(
        {"ofi_mrail-untagged", Subject::Kind::kOfiMrail, "", false, provider_list.front(), {}});
  }

  std::cout << fmt::format("# command: {}\n", invoked);
  std::cout << fmt::format(
      "# railyard-mrail-bench: {} rails; host a {} [{}], host b {} [{}]; "
      "window {}{}{}\n#\n",
      hosts.rails_a.size(), hosts.netns_a.empty() ? "(this host)" : hosts.netns_a, rails_a,
      hosts.netns_b.empty() ? "(this host)" : hosts.netns_b, rails_b, window,
      bidirectional ? "; bidirectional: bandwidth is the sum of both directions" : "",
      settings.rma == RmaMode::kNone
          ? ""
          : fmt::format("; railyard's subjects by RMA {} (flushed per window), baselines by "
                        "messages",
                        rma));
  // Every round measures every subject once; rounds interleave so a noisy
  // stretch of time spreads over all subjects. The order changes from round
  // to round (round_order.h) so that no subject is always measured at the
  // same point of a round (on this machine the subjects run late in a round
  // were seen to be slower, in every round), nor always right after the
  // same other subject.
  const std::size_t runs = subjects.size() + (wants("openmpi") ? 1 : 0);
  std::vector<std::vector<SubjectResult>> by_round;
  for (std::size_t round = 0; round < rounds; ++round) {
    std::vector<SubjectResult> results(runs);
    for (const std::size_t index : round_order(round, rounds, runs)) {
      if (index == subjects.size()) {
        std::cerr << fmt::format("railyard-mrail-bench: round {}/{}: openmpi\n", round + 1, rounds);
        results[index] =
            run_openmpi(hosts, settings, openmpi, std::chrono::seconds(subject_limit_s));
        continue;
      }
      const Subject& subject = subjects[index];
      const bool ofi_mrail = subject.kind == Subject::Kind::kOfiMrail;
      if (ofi_mrail && round > 0) {
        results[index] = by_round.front()[index];  // once is enough to fail
        continue;
      }
      const auto limit = std::chrono::seconds(ofi_mrail ? ofi_mrail_limit_s : subject_limit_s);
      MeasureSettings subject_settings = settings;
      subject_settings.latency =
          subject.kind != Subject::Kind::kParallelRails &&
          !(settings.rma != RmaMode::kNone && subject.kind == Subject::Kind::kRailyard);
      std::cerr << fmt::format("railyard-mrail-bench: round {}/{}: {}\n", round + 1, rounds,
                               subject.name);
      results[index] = run_subject(subject, hosts, subject_settings, limit);
    }
    by_round.push_back(std::move(results));
  }
  std::vector<SubjectResult> results = combine_rounds(by_round);
  reject_misconfigured(results, named("raw", provider_list.front()));

  print_table(
      results, settings.sizes, "Bandwidth (MB/s)",
      [](const Measurement& row) { return row.bandwidth_mbps; }, 1);
  print_table(
      results, settings.sizes,
      rounds > 1 ? "Latency (us, half round trip; the lowest of the rounds)"
                 : "Latency (us, half round trip)",
      [](const Measurement& row) { return row.latency_us; }, 2);
  const std::vector<SubjectResult> medians = with_median_latency(results);
  if (rounds > 1) {
    print_table(
        medians, settings.sizes, "Latency (us, half round trip; the median of the rounds)",
        [](const Measurement& row) { return row.latency_us; }, 2);
    print_slow_launches(results);
  }

  std::cout << "# Ratios (same run)\n";
  // One line of a ratio over the sizes: for latency its largest, else its
  // smallest, where it is, and the mean.
  const auto print_summary = [](const std::string& label,
                                const std::optional<RatioSummary>& summary, bool latency) {
    if (summary) {
      std::cout << fmt::format("#   {:<46} {} {:.3f} at {}, mean {:.3f} over {} sizes\n", label,
                               latency ? "max" : "min", summary->min, size_text(summary->at),
                               summary->mean, summary->count);
    }
  };
  const auto print_ratio = [&](const std::string& label, const std::vector<std::string>& numerators,
                               const std::string& denominator, std::uint64_t low,
                               std::uint64_t high, bool latency) {
    print_summary(label,
                  ratio(results, settings.sizes, numerators, denominator, low, high, latency),
                  latency);
    // A latency ratio over several rounds: of the medians too, and the
    // median of the rounds' own ratios (the subjects measured seconds apart).
    if (latency && rounds > 1) {
      print_summary("  of the medians",
                    ratio(medians, settings.sizes, numerators, denominator, low, high, true), true);
      print_summary("  median of each round's own",
                    paired_ratio(results, settings.sizes, numerators, denominator, low, high),
                    true);
    }
  };
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  for (const auto& provider : provider_list) {
    const auto in = [&](const std::string& subject) { return named(subject, provider); };
    const auto label = [&](const std::string& text) {
      return provider_list.size() == 1 ? text : fmt::format("{} ({})", text, provider);
    };
    print_ratio(label("striping / parallel rails, 64 KiB and up"), {in("striping")}, in("parallel"),
                65536, kMax, false);
    print_ratio(label("striping / openmpi, 64 KiB and up"), {in("striping")}, "openmpi", 65536,
                kMax, false);
    print_ratio(label("best of round-robin, striping / raw, 4-32 KiB"),
                {in("round-robin"), in("striping")}, in("raw"), 4096, 32768, false);
    print_ratio(label("fixed / raw latency, up to 4 KiB"), {in("fixed")}, in("raw"), 0, 4096, true);
    // Moving each message to the next rail must not cost latency.
    print_ratio(label("round-robin / fixed latency, up to 1 KiB"), {in("round-robin")}, in("fixed"),
                0, 1024, true);
    print_ratio(label("striping / fixed latency, up to 1 KiB"), {in("striping")}, in("fixed"), 0,
                1024, true);
    // Against Open MPI: small messages with the default table, at the
    // endpoint and through the Communicator; bandwidth against what the
    // rails carry, for both.
    print_ratio(label("default / openmpi latency, up to 1 KiB"), {in("default")}, "openmpi", 0,
                1024, true);
    print_ratio(label("comm-default / openmpi latency, up to 1 KiB"), {in("comm-default")},
                "openmpi", 0, 1024, true);
    print_ratio(label("openmpi / parallel rails, 64 KiB and up"), {"openmpi"}, in("parallel"),
                65536, kMax, false);
    // Each --table subject against Open MPI and the default table.
    for (const auto& name : table_names) {
      print_ratio(label(fmt::format("{} / openmpi latency, up to 1 KiB", name)), {in(name)},
                  "openmpi", 0, 1024, true);
      print_ratio(label(fmt::format("comm-{} / openmpi latency, up to 1 KiB", name)),
                  {in("comm-" + name)}, "openmpi", 0, 1024, true);
      print_ratio(label(fmt::format("{} / default latency, up to 16 KiB", name)), {in(name)},
                  in("default"), 0, 16384, true);
      print_ratio(label(fmt::format("{} / default, 1-32 KiB", name)), {in(name)}, in("default"),
                  1024, 32768, false);
      print_ratio(label(fmt::format("{} / default, 64 KiB and up", name)), {in(name)},
                  in("default"), 65536, kMax, false);
    }
    if (communicator) {
      std::vector<std::string> railyard_names = tools::comma_list("--policies", policies);
      railyard_names.insert(railyard_names.end(), table_names.begin(), table_names.end());
      for (const auto& policy : railyard_names) {
        print_ratio(label(fmt::format("comm-{0} / {0}, 64 KiB and up", policy)),
                    {in("comm-" + policy)}, in(policy), 65536, kMax, false);
        print_ratio(label(fmt::format("comm-{0} / {0} latency, up to 4 KiB", policy)),
                    {in("comm-" + policy)}, in(policy), 0, 4096, true);
      }
    }
  }
  print_ratio("openmpi / raw, 4-32 KiB", {"openmpi"}, named("raw", provider_list.front()), 4096,
              32768, false);
  // Each further provider against the first, subject by subject.
  for (std::size_t p = 1; p < provider_list.size(); ++p) {
    const std::string& first = provider_list.front();
    const std::string& other = provider_list[p];
    for (const auto& name : measured_per_provider) {
      const std::string numerator = named(name, other);
      const std::string denominator = named(name, first);
      const auto text = [&](const char* range) {
        return fmt::format("{} / {}, {}", numerator, denominator, range);
      };
      print_ratio(text("latency up to 1 KiB"), {numerator}, denominator, 0, 1024, true);
      print_ratio(text("4-32 KiB"), {numerator}, denominator, 4096, 32768, false);
      print_ratio(text("64 KiB and up"), {numerator}, denominator, 65536, kMax, false);
    }
  }
  std::cout << "#\n";

  for (const auto& result : results) {
    if (!result.rails.empty() && result.error.empty()) {
      std::string line = fmt::format("# bytes per rail, {}:", result.name);
      for (const auto& rail : result.rails) {
        line += fmt::format(" [{} sent {} received {}]", rail.name, rail.sent, rail.received);
      }
      std::cout << line << "\n";
    }
  }
  for (const auto& result : results) {
    if (!result.error.empty()) {
      std::cout << fmt::format("# {} failed: {}\n", result.name, result.error);
    }
    for (const auto& failure : result.round_failures) {
      std::cout << fmt::format("# {} failed in {} (its figures are from the other rounds)\n",
                               result.name, failure);
    }
  }
  std::cout << "#\n# How each subject was launched:\n";
  for (const auto& result : results) {
    std::cout << fmt::format("#   {}: {}\n", result.name,
                             result.launch.empty() ? "not launched" : result.launch);
  }

  if (!json_path.empty()) {
    nlohmann::json out;
    out["tool"] = "railyard-mrail-bench";
    out["command"] = invoked;
    out["window"] = window;
    out["bidirectional"] = bidirectional;
    out["rma"] = rma;
    out["rails_a"] = hosts.rails_a;
    out["rails_b"] = hosts.rails_b;
    for (const auto& result : results) {
      nlohmann::json subject{{"name", result.name},
                             {"error", result.error},
                             {"failed_rounds", result.round_failures},
                             {"launch", result.launch}};
      for (const auto& row : result.rows) {
        subject["results"].push_back({{"size", row.size},
                                      {"latency_us", row.latency_us},
                                      {"bandwidth_MBps", row.bandwidth_mbps}});
      }
      // Every round's figures, as measured: [size, latency, bandwidth]; an
      // empty list for a round the subject failed.
      subject["rounds"] = nlohmann::json::array();
      for (const auto& rows : result.round_rows) {
        nlohmann::json round = nlohmann::json::array();
        for (const auto& row : rows) {
          round.push_back({row.size, row.latency_us, row.bandwidth_mbps});
        }
        subject["rounds"].push_back(round);
      }
      for (const auto& rail : result.rails) {
        subject["rails"].push_back(
            {{"name", rail.name}, {"bytes_sent", rail.sent}, {"bytes_received", rail.received}});
      }
      out["subjects"].push_back(subject);
    }
    std::ofstream(json_path) << out.dump(2) << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors(
      "railyard-mrail-bench: error: ", railyard::bench::run, argc, argv);
}
