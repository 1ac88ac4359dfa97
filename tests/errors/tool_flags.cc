// Bad command-line flags of the installed tools and the benchmarks. Each
// tool runs as its own process, as a user would start it, and must exit
// with a failure status and a message on stderr.
#include <chrono>
#include <string>
#include <vector>

#include "bad_input.h"
#include "child_output.h"

namespace railyard::testing {
namespace {

// A refused flag exits 2 (as a launcher's usage error does) with a line
// that starts with the tool's name; anything else counts as not refused.
std::string usage_refusal(const std::string& tool, const std::string& name,
                          const std::vector<std::string>& arguments) {
  std::vector<std::string> argv{tool};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ChildOutput output = run_program(std::move(argv), {}, std::chrono::seconds(30));
  if (output.status == 0) {
    return {};
  }
  const std::string prefix = name + ": ";
  if (output.status != 2 || output.err.rfind(prefix, 0) != 0) {
    return "exit status " + std::to_string(output.status) +
           ", expected 2 and a first line "
           "starting with '" +
           prefix + "'";
  }
  return std::move(output.err);
}

BadInput flag(const char* tool, std::string input, std::string value, std::string expected,
              std::vector<std::string> arguments) {
  const std::string name = std::string(tool).substr(std::string(tool).rfind('/') + 1);
  return BadInput{
      .kind = "Command-line flags: " + name,
      .input = std::move(input),
      .value = std::move(value),
      .expected = std::move(expected),
      .refuse = [tool, name,
                 arguments = std::move(arguments)] { return usage_refusal(tool, name, arguments); },
      .input_in_message = {},
      .value_in_message = {},
      .secret = {}};
}

// A flag whose value is taken but fails when the tool uses it (a provider
// this machine lacks): an error naming it, not a usage error.
BadInput failing(BadInput input, const char* tool, std::vector<std::string> arguments) {
  input.refuse = [tool, arguments = std::move(arguments)] { return tool_refusal(tool, arguments); };
  return input;
}

// A program that cannot be started: the shell's status 127, not a usage error.
BadInput unstartable(const char* tool, const std::string& program) {
  return BadInput{.kind = "Command-line flags: railyard-run",
                  .input = "program",
                  .value = program,
                  .expected = "No such file",
                  .refuse =
                      [tool, program] {
                        return tool_refusal(tool, {"-n", "2", program});
                      },
                  .input_in_message = {},
                  .value_in_message = {},
                  .secret = {}};
}

}  // namespace

std::vector<BadInput> tool_flags() {
  constexpr const char* kBench = RAILYARD_BENCH_PATH;
  constexpr const char* kRun = RAILYARD_RUN_PATH;
  constexpr const char* kInfo = RAILYARD_INFO_PATH;
  constexpr const char* kMrailBench = RAILYARD_MRAIL_BENCH_PATH;
  constexpr const char* kPingpong = RAILYARD_PINGPONG_PATH;
  constexpr const char* kRstreamBench = RAILYARD_RSTREAM_BENCH_PATH;
  constexpr const char* kSoak = RAILYARD_SOAK_PATH;
  return {
      flag(kBench, "operation", "scan", "expected one of allreduce, bcast", {"scan"}),
      flag(kBench, "-b", "8x", "expected a size in bytes", {"allreduce", "-b", "8x"}),
      flag(kBench, "-e", "1k", "expected -b at most -e", {"allreduce", "-b", "4k", "-e", "1k"}),
      flag(kBench, "-f", "1", "expected a whole factor of 2 or more", {"allreduce", "-f", "1"}),
      flag(kBench, "-t", "complex", "expected one of int8", {"allreduce", "-t", "complex"}),
      flag(kBench, "-o", "avg", "expected one of sum", {"allreduce", "-o", "avg"}),
      flag(kBench, "-o with -t", "band", "it takes the integer types",
           {"allreduce", "-o", "band", "-t", "float"}),
      flag(kBench, "-a", "quantum", "it has rabenseifner, recursive_doubling",
           {"allreduce", "-a", "quantum"}),
      flag(kBench, "--iters", "0", "not in range 1 to", {"allreduce", "-n", "0"}),
      flag(kBench, "--warmup_iters", "-1", "not in range 0 to", {"allreduce", "-w", "-1"}),
      flag(kBench, "--check", "2", "not in range 0 to 1", {"allreduce", "-c", "2"}),
      flag(kBench, "-r", "-2", "expected a rank", {"bcast", "-r", "-2"}),
      flag(kBench, "operation", "", "operation is required", {"-n", "2"}),
      flag(kBench, "--bogus", "", "not expected: --bogus", {"allreduce", "--bogus"}),
      flag(kBench, "-e", "2", "the smallest allreduce of float on 1 ranks is 4 bytes",
           {"allreduce", "-b", "1", "-e", "2"}),
      flag(kRun, "--np", "0", "not in range 1 to 4096", {"-n", "0", "true"}),
      flag(kRun, "--timeout", "soon", "expected a duration",
           {"-n", "2", "--timeout", "soon", "true"}),
      flag(kRun, "--bind", "sideways", "expected none, core or numa",
           {"-n", "2", "--bind", "sideways", "true"}),
      flag(kRun, "--rails", "some", "expected 'nearest', 'all' or a rail count",
           {"-n", "2", "--rails", "some", "true"}),
      flag(kRun, "program", "", "expected a program to run", {"-n", "2"}),
      unstartable(kRun, "/nonexistent/program"),
      flag(kInfo, "--local-size", "0", "not in range 1 to 4096", {"--local-size", "0"}),
      flag(kInfo, "--binding", "sideways", "{none,core,numa}", {"--binding", "sideways"}),
      flag(kInfo, "--topology", "/nonexistent/topology.xml", "expected an hwloc XML",
           {"--topology", "/nonexistent/topology.xml"}),
      flag(kMrailBench, "--sizes", "1k-x", "expected a byte count", {"--sizes", "1k-x"}),
      flag(kMrailBench, "--max-size", "1k", "expected a size from --min-size",
           {"--min-size", "1m", "--max-size", "1k"}),
      flag(kMrailBench, "--policies", "zigzag", "expected fixed, round-robin or striping",
           {"--policies", "zigzag"}),
      flag(kMrailBench, "--compare", "gloo", "expected raw, parallel, ofi_mrail, openmpi or none",
           {"--compare", "gloo"}),
      flag(kMrailBench, "--table", "rr", "expected NAME=TABLE", {"--table", "rr"}),
      flag(kMrailBench, "--setting", "a=b", "expected NAME=VARIABLE=VALUE", {"--setting", "a=b"}),
      flag(kMrailBench, "--providers", "net,,tcp", "without empty entries",
           {"--providers", "net,,tcp"}),
      flag(kMrailBench, "--window", "0", "not in range 1 to 1024", {"--window", "0"}),
      flag(kMrailBench, "--bind", "0,0", "expected none or two distinct CPUs", {"--bind", "0,0"}),
      flag(kPingpong, "--rails", "", "without empty entries", {"--rails", ""}),
      named_as(failing(flag(kPingpong, "--provider", "carrier-pigeon",
                            "providers offering FI_EP_RDM here", {}),
                       kPingpong, {"--provider", "carrier-pigeon"}),
               "no libfabric provider is named"),
      flag(kPingpong, "--max-size", "2g", "up to 1g", {"--max-size", "2g"}),
      shown_as(flag(kRstreamBench, "--sizes", "64,x", "expected a byte count", {"--sizes", "64,x"}),
               "64,x", "'x'"),
      flag(kRstreamBench, "--bytes", "1k", "expected at least the largest of --sizes",
           {"--bytes", "1k"}),
      flag(kRstreamBench, "--host", "nowhere.invalid", "expected an IPv4 address",
           {"--host", "nowhere.invalid"}),
      flag(kRstreamBench, "--rounds", "0", "not in range 1 to 100", {"--rounds", "0"}),
      flag(kSoak, "--rails-a", "127.0.0.1,,127.0.0.2",
           "expected a comma list without empty entries", {"--rails-a", "127.0.0.1,,127.0.0.2"}),
      flag(kSoak, "--max-size", "4g", "expected a size up to 1g", {"--max-size", "4g"}),
      flag(kSoak, "--messages", "1", "not in range 2 to", {"--messages", "1"}),
  };
}

}  // namespace railyard::testing
