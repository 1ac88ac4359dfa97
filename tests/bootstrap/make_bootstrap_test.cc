// Choosing the bootstrap (make_bootstrap) outside a PMIx launcher, and the
// bootstrap of a job of one rank. The PMIx choice runs under mpirun
// (pmix_bootstrap_job.cc).
#include "railyard/bootstrap/make_bootstrap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "blob_text.h"
#include "railyard/bootstrap/single_bootstrap.h"
#include "railyard/common/error.h"
#include "tools/support/free_port.h"

namespace railyard::comm {
namespace {

using namespace std::chrono_literals;
using testing::blob_text;
using testing::text_blob;

bool under_pmix() {
  return std::getenv("PMIX_RANK") != nullptr;  // NOLINT(concurrency-mt-unsafe)
}

LaunchIdentity identity_of(unsigned rank, unsigned size, const std::string& launcher) {
  LaunchIdentity identity;
  identity.rank = rank;
  identity.size = size;
  identity.launcher = launcher;
  identity.rank_variable = launcher == "railyard" ? "RAILYARD_RANK" : "OMPI_COMM_WORLD_RANK";
  return identity;
}

bootstrap::BootstrapOptions quick_options() {
  bootstrap::BootstrapOptions options;
  options.timeout = 10s;
  options.job_key = "make-bootstrap-test";
  return options;
}

std::string config_input(const std::function<void()>& call) {
  try {
    call();
  } catch (const ConfigError& error) {
    return error.input() + ": " + error.what();
  }
  return "no ConfigError";
}

TEST(MakeBootstrap, WithoutAnyLauncherItIsAJobOfOneRank) {
  if (under_pmix()) {
    GTEST_SKIP() << "this test itself runs under a PMIx launcher";
  }
  auto bootstrap = bootstrap::make_bootstrap(text_blob("me"), quick_options(), {});
  EXPECT_STREQ(bootstrap->method(), "single");
  EXPECT_EQ(bootstrap->rank(), 0);
  EXPECT_EQ(bootstrap->size(), 1);
  ASSERT_EQ(bootstrap->descriptors().size(), 1U);
  EXPECT_EQ(blob_text(bootstrap->descriptors()[0]), "me");
}

TEST(MakeBootstrap, AutoTakesTheRootRailyardRunNamed) {
  bootstrap::BootstrapOptions options = quick_options();
  options.root = "127.0.0.1:" + std::to_string(tools::free_tcp_port());
  constexpr unsigned kSize = 3;
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> joined(kSize);
  std::vector<std::string> errors(kSize);
  std::vector<std::thread> ranks;
  for (unsigned rank = 0; rank < kSize; ++rank) {
    ranks.emplace_back([&, rank] {
      try {
        joined[rank] = bootstrap::make_bootstrap(text_blob("rank " + std::to_string(rank)), options,
                                                 identity_of(rank, kSize, "railyard"));
      } catch (const std::exception& error) {
        errors[rank] = error.what();
      }
    });
  }
  for (auto& rank : ranks) {
    rank.join();
  }
  for (unsigned rank = 0; rank < kSize; ++rank) {
    ASSERT_TRUE(joined[rank]) << "rank " << rank << ": " << errors[rank];
    EXPECT_STREQ(joined[rank]->method(), "root");
    EXPECT_EQ(joined[rank]->rank(), static_cast<int>(rank));
    ASSERT_EQ(joined[rank]->descriptors().size(), kSize);
    EXPECT_EQ(blob_text(joined[rank]->descriptors()[2]), "rank 2");
  }
  // Rank 0 waits for the others' goodbyes: destroy them on threads.
  std::vector<std::thread> leaving;
  leaving.reserve(joined.size());
  for (auto& bootstrap : joined) {
    leaving.emplace_back([&bootstrap] { bootstrap.reset(); });
  }
  for (auto& thread : leaving) {
    thread.join();
  }
}

TEST(MakeBootstrap, ALaunchedJobWithoutPmixOrRootNamesRailyardRoot) {
  if (under_pmix()) {
    GTEST_SKIP() << "this test itself runs under a PMIx launcher";
  }
  const std::string error = config_input([] {
    (void)bootstrap::make_bootstrap(text_blob("me"), quick_options(),
                                    identity_of(1, 4, "Open MPI"));
  });
  EXPECT_NE(error.find("RAILYARD_ROOT:"), std::string::npos) << error;
  EXPECT_NE(error.find("Open MPI says this is a job of 4 ranks"), std::string::npos) << error;
}

TEST(MakeBootstrap, ForcedMethodsThatCannotRunSayWhy) {
  bootstrap::BootstrapOptions options = quick_options();
  options.method = bootstrap::BootstrapMethod::kMpi;
  std::string error = config_input([&] { (void)bootstrap::make_bootstrap({}, options, {}); });
  EXPECT_NE(error.find("RAILYARD_BOOTSTRAP:"), std::string::npos) << error;
  EXPECT_NE(error.find("MPI shim"), std::string::npos) << error;

  options.method = bootstrap::BootstrapMethod::kRoot;
  error = config_input(
      [&] { (void)bootstrap::make_bootstrap({}, options, identity_of(0, 2, "railyard")); });
  EXPECT_NE(error.find("RAILYARD_ROOT:"), std::string::npos) << error;

  options.root = "127.0.0.1:1";
  error = config_input([&] { (void)bootstrap::make_bootstrap({}, options, {}); });
  EXPECT_NE(error.find("RAILYARD_RANK:"), std::string::npos) << error;

  if (!under_pmix()) {
    options.method = bootstrap::BootstrapMethod::kPmix;
    error = config_input([&] { (void)bootstrap::make_bootstrap({}, options, {}); });
    EXPECT_NE(error.find("no PMIx server answered"), std::string::npos) << error;
  }
}

TEST(SingleBootstrap, CollectivesReturnItsOwnBytes) {
  bootstrap::SingleBootstrap bootstrap(text_blob("desc"));
  const auto all = bootstrap.allgather(text_blob("mine"), 1s);
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(blob_text(all[0]), "mine");
  EXPECT_EQ(blob_text(bootstrap.broadcast(0, text_blob("root's"), 1s)), "root's");
  EXPECT_THROW((void)bootstrap.broadcast(1, {}, 1s), UsageError);
  bootstrap.barrier(1s);
}

TEST(SingleBootstrap, StoreWaitsForAnotherThreadAndTimesOutNamingTheKey) {
  bootstrap::SingleBootstrap bootstrap({});
  std::thread setter([&] {
    std::this_thread::sleep_for(20ms);
    bootstrap.store().set("late", text_blob("value"));
  });
  EXPECT_EQ(blob_text(bootstrap.store().get("late", 5s)), "value");
  setter.join();
  try {
    (void)bootstrap.store().get("never", 10ms);
    ADD_FAILURE() << "a key nobody set was found";
  } catch (const TimeoutError& error) {
    EXPECT_NE(std::string(error.what()).find("\"never\""), std::string::npos) << error.what();
  }
  EXPECT_THROW(bootstrap.store().set(std::string(bootstrap::Store::kMaxKeyLength + 1, 'k'), {}),
               UsageError);
}

TEST(SingleBootstrap, AbortEndsWaitingAndLaterCalls) {
  bootstrap::SingleBootstrap bootstrap({});
  std::thread aborter([&] {
    std::this_thread::sleep_for(20ms);
    bootstrap.abort(7, "test abort");
  });
  try {
    (void)bootstrap.store().get("never", 10s);
    ADD_FAILURE() << "the abort did not end the wait";
  } catch (const AbortError& error) {
    EXPECT_EQ(error.code(), 7);
    EXPECT_EQ(error.rank(), 0);
  }
  aborter.join();
  EXPECT_THROW((void)bootstrap.allgather({}, 1s), AbortError);
  ASSERT_TRUE(bootstrap.failure());
  EXPECT_EQ(bootstrap.failure()->reason, "test abort");
}

}  // namespace
}  // namespace railyard::comm
