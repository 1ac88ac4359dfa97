// One railyard-bench run over any BenchComm: the header, a row per size
// as it is measured (rank 0 prints, on stdout), the footer, what each rank
// sent over its rails, and the CSV and JSON files.
#pragma once

#include "bench_comm.h"
#include "bench_options.h"

namespace railyard::bench {

// Collective. Returns the exit status: 0, or 1 when a check found a wrong
// element. Throws std::invalid_argument for a root outside the job,
// std::runtime_error for a file it cannot write, and the library's errors.
int run_bench(BenchComm& comm, const BenchOptions& options);

}  // namespace railyard::bench
