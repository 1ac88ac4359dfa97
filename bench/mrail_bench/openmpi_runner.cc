#include "openmpi_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "host_cpus.h"

namespace railyard::bench {
namespace {

std::string quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// A rankfile placing rank 0 (host a) and rank 1 (host b) each on its CPU,
// removed with this object.
class Rankfile {
 public:
  Rankfile(unsigned cpu_a, unsigned cpu_b)
      : lines_{fmt::format("rank 0=hosta slot={}", cpu_a),
               fmt::format("rank 1=hostb slot={}", cpu_b)} {
    const std::string text = lines_[0] + "\n" + lines_[1] + "\n";
    std::string name = "/tmp/railyard-mrail-bench.rankfile.XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) {
      throw std::runtime_error(
          fmt::format("mkstemp({}) failed: {}", name, std::generic_category().message(errno)));
    }
    path_ = name;
    const auto written = ::write(fd, text.data(), text.size());
    ::close(fd);
    if (written != static_cast<ssize_t>(text.size())) {
      ::unlink(path_.c_str());
      throw std::runtime_error(fmt::format("could not write the rankfile {}", path_));
    }
  }
  Rankfile(const Rankfile&) = delete;
  Rankfile& operator=(const Rankfile&) = delete;
  Rankfile(Rankfile&&) = delete;
  Rankfile& operator=(Rankfile&&) = delete;
  ~Rankfile() { ::unlink(path_.c_str()); }

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // As the launch line shows them.
  [[nodiscard]] std::string lines() const {
    return fmt::format("'{}', '{}'", lines_[0], lines_[1]);
  }

 private:
  std::array<std::string, 2> lines_;
  std::string path_;
};

}  // namespace

SubjectResult run_openmpi(const Hosts& hosts, const MeasureSettings& settings,
                          const OpenMpiSetup& setup, std::chrono::seconds limit) {
  SubjectResult result;
  result.name = "openmpi";
  result.kind = Subject::Kind::kOpenMpi;
  if (hosts.netns_a.empty() || hosts.netns_b.empty() || hosts.subnets.empty()) {
    result.error = "needs emulated hosts (run under scripts/netns-rails.sh)";
    return result;
  }
  if (::access(setup.program.c_str(), X_OK) != 0 || ::access(setup.agent.c_str(), X_OK) != 0) {
    result.error =
        fmt::format("'{}' or '{}' is missing or not executable", setup.program, setup.agent);
    return result;
  }
  // The agent reads the namespace names from the environment. The tool's
  // parent process is single-threaded and uses no library state.
  ::setenv("RAILYARD_NETNS_A", hosts.netns_a.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  ::setenv("RAILYARD_NETNS_B", hosts.netns_b.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  std::string subnets;
  for (const auto& subnet : hosts.subnets) {
    subnets += (subnets.empty() ? "" : ",") + subnet;
  }
  // Both emulated hosts are one machine: left to itself each host's daemon
  // binds its rank to core 0 and the two ranks share it. So either no
  // binding, or each rank bound to its host's CPU by a rankfile whose slots
  // are OS CPU numbers (rmaps_rank_file_physical), as the bench binds its
  // own subjects.
  std::optional<Rankfile> rankfile;
  std::string placement = "--bind-to none";
  if (hosts.cpu_a && hosts.cpu_b) {
    try {
      rankfile.emplace(*hosts.cpu_a, *hosts.cpu_b);
    } catch (const std::exception& e) {
      result.error = e.what();
      return result;
    }
    placement = fmt::format("--rankfile {} --mca rmaps_rank_file_physical 1", rankfile->path());
  }
  std::string command = fmt::format(
      // ob1 makes the TCP BTL the transport measured.
      "timeout -k 5 {} ip netns exec {} mpirun {} --host hosta:1,hostb:1 -np 2 {} "
      "--mca pml ob1 --mca plm_rsh_agent {} --mca btl tcp,self --mca btl_tcp_if_include {} "
      "--mca oob_tcp_if_include {} {}{} {} {}",
      limit.count(), quote(hosts.netns_a), ::geteuid() == 0 ? "--allow-run-as-root" : "", placement,
      quote(setup.agent), subnets, hosts.subnets.front(), quote(setup.program),
      settings.bidirectional ? " --bidirectional" : "", settings.window,
      settings.latency_iterations);
  for (const auto size : settings.sizes) {
    command += fmt::format(" {}", size);
  }
  // What a reader runs to get the same figures: the agent reads the
  // namespaces from these two variables.
  result.launch = fmt::format("RAILYARD_NETNS_A={} RAILYARD_NETNS_B={} {}", quote(hosts.netns_a),
                              quote(hosts.netns_b), command);
  if (rankfile) {
    result.launch += fmt::format(" (the rankfile's lines: {})", rankfile->lines());
  }
  command += " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), &::pclose);
  if (!pipe) {
    result.error = "could not start mpirun";
    return result;
  }
  std::string output;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), pipe.get()) != nullptr) {
    output += chunk.data();
  }
  const int status = ::pclose(pipe.release());
  std::istringstream lines(output);
  std::string line;
  std::string misplaced;
  while (std::getline(lines, line)) {
    constexpr std::string_view kRankReport = "# rank ";  // "# rank <r> cpus <list>"
    if (line.starts_with(kRankReport)) {
      // Where the rank ran, as it saw it: a rankfile Open MPI did not apply
      // fails the subject rather than pass for a bound result.
      std::istringstream report(line.substr(kRankReport.size()));
      int rank = -1;
      std::string word;
      std::string cpus;
      if (report >> rank >> word >> cpus) {
        const auto why = binding_mismatch(fmt::format("Open MPI's rank {}", rank), cpus,
                                          rank == 0 ? hosts.cpu_a : hosts.cpu_b);
        misplaced += misplaced.empty() || why.empty() ? why : "; " + why;
      }
      continue;
    }
    std::istringstream fields(line);
    Measurement row;
    if (fields >> row.size >> row.latency_us >> row.bandwidth_mbps) {
      if (row.size > settings.latency_up_to) {
        row.latency_us = -1;
      }
      result.rows.push_back(row);
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      result.rows.size() != settings.sizes.size()) {
    result.error = fmt::format("mpirun {} after {} of {} sizes: {}",
                               WIFEXITED(status) && WEXITSTATUS(status) == 124
                                   ? fmt::format("timed out ({} s)", limit.count())
                                   : fmt::format("exited with status {}", WEXITSTATUS(status)),
                               result.rows.size(), settings.sizes.size(), output.substr(0, 600));
  } else if (!misplaced.empty()) {
    result.error = misplaced;
  }
  return result;
}

}  // namespace railyard::bench
