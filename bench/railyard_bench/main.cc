// railyard-bench: collective bandwidth and latency, nccl-tests' way, over
// railyard's collectives. Run it under any launcher:
//   railyard-run -n 4 railyard-bench allreduce -b 8 -e 64M
//   mpirun -np 4 --bind-to none railyard-bench allreduce -b 8 -e 64M
#include <CLI/CLI.hpp>

#include "bench_options.h"
#include "bench_run.h"
#include "railyard/comm/communicator.h"
#include "railyard_bench_comm.h"
#include "tools/support/command_line.h"
#include "tools/support/tool_main.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"railyard-bench: collective bandwidth and latency in nccl-tests' columns"};
  railyard::bench::BenchArguments arguments;
  railyard::bench::add_arguments(app, arguments);
  if (const auto status =
          railyard::tools::parse_command_line(app, argc, argv, "railyard-bench: ")) {
    return *status;
  }
  // Checked before the job starts, so every rank fails alike and none waits.
  const railyard::bench::BenchOptions options = railyard::bench::resolve(arguments);
  railyard::bench::RailyardBenchComm comm(railyard::comm::Communicator::world(), options.algorithm);
  return railyard::bench::run_bench(comm, options);
}

}  // namespace

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-bench: ", run, argc, argv);
}
