#include "openmpi_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include <fmt/format.h>

namespace railyard::bench {
namespace {

std::string quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

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
  std::string command = fmt::format(
      // Both emulated hosts are one machine: without --bind-to none each
      // host's daemon binds its rank to core 0 and the two ranks share it.
      // ob1 makes the TCP BTL the transport measured.
      "timeout -k 5 {} ip netns exec {} mpirun {} --host hosta:1,hostb:1 -np 2 --bind-to none "
      "--mca pml ob1 --mca plm_rsh_agent {} --mca btl tcp,self --mca btl_tcp_if_include {} "
      "--mca oob_tcp_if_include {} {}{} {} {}",
      limit.count(), quote(hosts.netns_a), ::geteuid() == 0 ? "--allow-run-as-root" : "",
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
  while (std::getline(lines, line)) {
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
  }
  return result;
}

}  // namespace railyard::bench
