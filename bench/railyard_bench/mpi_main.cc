// railyard-bench-mpi: railyard-bench's measurement over MPI's own
// collectives, the baseline of scripts/collectives-vs-openmpi.sh:
//   mpirun -np 4 --bind-to none railyard-bench-mpi allreduce -b 8 -e 64M
// Same flags, same columns, same check; -a is refused (choose Open MPI's
// algorithms with its --mca coll_* parameters).
#include <CLI/CLI.hpp>
#include <stdexcept>

#include "bench_options.h"
#include "bench_run.h"
#include "mpi_bench_comm.h"
#include "tools/support/command_line.h"
#include "tools/support/tool_main.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"railyard-bench-mpi: railyard-bench's measurement of MPI's collectives"};
  railyard::bench::BenchArguments arguments;
  railyard::bench::add_arguments(app, arguments);
  if (const auto status =
          railyard::tools::parse_command_line(app, argc, argv, "railyard-bench-mpi: ")) {
    return *status;
  }
  railyard::bench::BenchOptions options = railyard::bench::resolve(arguments);
  if (!options.algorithm.empty()) {
    throw std::invalid_argument("-a '" + options.algorithm +
                                "': MPI's algorithms are chosen with its own --mca parameters");
  }
  railyard::bench::check_mpi_type(options.sweep.type);
  options.program = "railyard-bench-mpi";
  if (options.label.empty()) {
    options.label = "mpi";
  }
  railyard::bench::MpiSession session(argc, argv);
  int exit_status = 0;
  {
    railyard::bench::MpiBenchComm comm;
    exit_status = railyard::bench::run_bench(comm, options);
  }
  return exit_status;
}

}  // namespace

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-bench-mpi: ", run, argc, argv);
}
