#include "railyard/common/detail/env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "scoped_env.h"

namespace railyard {
namespace {

TEST(Environment, CapturesOnlyRailyardAndOfiMrailVariables) {
  EXPECT_TRUE(env::captured("RAILYARD_LOG"));
  EXPECT_TRUE(env::captured("FI_OFI_MRAIL_CONFIG"));
  EXPECT_TRUE(env::captured("FI_OFI_MRAIL_ADDR_STRC"));
  EXPECT_FALSE(env::captured("FI_PROVIDER"));
  EXPECT_FALSE(env::captured("OMPI_COMM_WORLD_RANK"));
}

TEST(Environment, KeepsTheValueAVariableHadBeforeItWasRewrittenInPlace) {
  const testing::ScopedEnv set("RAILYARD_TEST_REWRITTEN", "4k:fixed,-1:striping");
  ASSERT_EQ(env::get("RAILYARD_TEST_REWRITTEN").value_or(""), "4k:fixed,-1:striping");
  // What strtok in libfabric's ofi_mrail does to getenv()'s storage.
  char* storage = std::getenv("RAILYARD_TEST_REWRITTEN");  // NOLINT(concurrency-mt-unsafe)
  ASSERT_NE(storage, nullptr);
  *std::strchr(storage, ',') = '\0';
  ASSERT_STREQ(std::getenv("RAILYARD_TEST_REWRITTEN"),
               "4k:fixed");  // NOLINT(concurrency-mt-unsafe)
  EXPECT_EQ(env::get("RAILYARD_TEST_REWRITTEN").value_or(""), "4k:fixed,-1:striping");
  EXPECT_EQ(env::get("RAILYARD_TEST_REWRITTEN").value_or(""), "4k:fixed,-1:striping");
  // Leave the storage as glibc handed it out, for the restore.
  storage[std::strlen(storage)] = ',';
}

TEST(Environment, FollowsWhatTheProgramSetsReplacesOrRemoves) {
  {
    const testing::ScopedEnv first("RAILYARD_TEST_SET", "first");
    EXPECT_EQ(env::get("RAILYARD_TEST_SET").value_or(""), "first");
    const testing::ScopedEnv second("RAILYARD_TEST_SET", "second");
    EXPECT_EQ(env::get("RAILYARD_TEST_SET").value_or(""), "second");
    const testing::ScopedEnv removed("RAILYARD_TEST_SET", nullptr);
    EXPECT_FALSE(env::get("RAILYARD_TEST_SET").has_value());
  }
  EXPECT_FALSE(env::get("RAILYARD_TEST_SET").has_value());
  EXPECT_EQ(env::get_or("RAILYARD_TEST_SET", "fallback"), "fallback");
}

}  // namespace
}  // namespace railyard
