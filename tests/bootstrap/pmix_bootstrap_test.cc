// The PMIx bootstrap outside a PMIx launcher; under mpirun it runs as
// comm.pmix_bootstrap_under_mpirun (pmix_bootstrap_job.cc).
#include "railyard/bootstrap/pmix_bootstrap.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

namespace railyard::comm {
namespace {

TEST(PmixBootstrap, OutsideAPmixLauncherItStandsAsideQuickly) {
  if (std::getenv("PMIX_RANK") != nullptr) {  // NOLINT(concurrency-mt-unsafe)
    GTEST_SKIP() << "this test itself runs under a PMIx launcher";
  }
  bootstrap::BootstrapOptions options;
  options.timeout = std::chrono::seconds(5);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(bootstrap::PmixBootstrap::connect({}, options), nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace railyard::comm
