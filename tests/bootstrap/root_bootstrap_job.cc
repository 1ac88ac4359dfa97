// One rank of a job started by railyard-run, bootstrapping through the root
// it names (run by ctest as `railyard-run -n 5 comm_root_bootstrap_job`).
// Every failed check is printed and makes the exit status non-zero;
// railyard-run returns the first non-zero one.
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "blob_text.h"
#include "job_check.h"
#include "railyard/bootstrap/make_bootstrap.h"

namespace {

using railyard::testing::blob_text;
using railyard::testing::text_blob;
using namespace std::chrono_literals;

railyard::testing::JobCheck check;

}  // namespace

int main() {
  try {
    const auto identity = railyard::launch_identity_from_environment();
    const auto options = railyard::bootstrap::BootstrapOptions::from_environment();
    const auto bootstrap = railyard::bootstrap::make_bootstrap(
        text_blob(fmt::format("rank {}", identity.rank.value_or(99))), options, identity);
    const int rank = bootstrap->rank();
    const int size = bootstrap->size();
    check(std::string(bootstrap->method()) == "root",
          fmt::format("method {}, expected root", bootstrap->method()));
    check(identity.launcher == "railyard", "launcher " + identity.launcher);
    for (int other = 0; other < size; ++other) {
      check(blob_text(bootstrap->descriptors()[static_cast<std::size_t>(other)]) ==
                fmt::format("rank {}", other),
            fmt::format("descriptor of rank {}", other));
    }
    const auto all = bootstrap->allgather(text_blob(std::to_string(rank * rank)), 30s);
    for (int other = 0; other < size; ++other) {
      check(blob_text(all[static_cast<std::size_t>(other)]) == std::to_string(other * other),
            fmt::format("allgather entry {}", other));
    }
    if (rank == size - 1) {
      bootstrap->store().set("last", text_blob("here"));
    }
    check(blob_text(bootstrap->store().get("last", 30s)) == "here", "store value from last rank");
    bootstrap->barrier(30s);
    fmt::print("rank {} of {}: {} failures\n", rank, size, check.failures());
  } catch (const std::exception& error) {
    fmt::print(stderr, "FAILED: {}\n", error.what());
    return 1;
  }
  return check.exit_status();
}
