// Regions of libfabric's shm provider left by processes that are gone:
// recognised by name, removed only when their process no longer exists and
// they belong to this user.
#include "railyard/shm/stale_regions.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace railyard::shm {
namespace {

namespace fs = std::filesystem;

TEST(StaleRegions, NamesAreReadAsPidUidAndIndex) {
  const auto owner = owner_of_region("4242:1000:3");
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->pid, 4242);
  EXPECT_EQ(owner->uid, 1000U);
  for (const char* other :
       {"", "4242", "4242:1000", "4242:1000:", "x:1000:3", "4242:u:3", "4242:1000:3x", "0:1000:3",
        "-5:1000:3", "sem.4242:1000:3", "fi_shm://4242:1000:3", "99999999999999999999:0:0",
        "railyard-segment:", "railyard-segment:4242:1000", "railyard-segmentx:4242:1000:3"}) {
    EXPECT_FALSE(owner_of_region(other).has_value()) << '"' << other << '"';
  }
}

TEST(StaleRegions, RailyardSegmentsAreReadAfterTheirPrefix) {
  const auto owner = owner_of_region("railyard-segment:4242:1000:7");
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->pid, 4242);
  EXPECT_EQ(owner->uid, 1000U);
}

// A process id that was just in use and is not any more.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) {
    std::_Exit(0);
  }
  int status = 0;
  (void)::waitpid(child, &status, 0);
  return child;
}

class StaleRegionDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / fmt::format("railyard-shm-test-{}", ::getpid());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  void touch(const std::string& name) const { std::ofstream(directory_ / name) << "region"; }
  [[nodiscard]] bool exists(const std::string& name) const { return fs::exists(directory_ / name); }

  fs::path directory_;
};

TEST_F(StaleRegionDirectory, OnlyThisUsersRegionsOfDeadProcessesGo) {
  const pid_t dead = dead_pid();
  const uid_t me = ::geteuid();
  const std::string stale = fmt::format("{}:{}:0", dead, me);
  const std::string stale_too = fmt::format("{}:{}:7", dead, me);
  const std::string alive = fmt::format("{}:{}:0", ::getpid(), me);
  const std::string another_user = fmt::format("{}:{}:0", dead, me + 1);
  const std::string not_a_region = fmt::format("{}-{}-0", dead, me);
  for (const auto& name : {stale, stale_too, alive, another_user, not_a_region}) {
    touch(name);
  }
  const std::string a_directory = fmt::format("{}:{}:1", dead, me);
  fs::create_directory(directory_ / a_directory);

  EXPECT_EQ(remove_stale_regions(directory_), 2U);
  EXPECT_FALSE(exists(stale));
  EXPECT_FALSE(exists(stale_too));
  EXPECT_TRUE(exists(alive));
  EXPECT_TRUE(exists(another_user));
  EXPECT_TRUE(exists(not_a_region));
  EXPECT_TRUE(exists(a_directory));
  EXPECT_EQ(remove_stale_regions(directory_), 0U) << "a second pass finds nothing";
}

TEST_F(StaleRegionDirectory, AMissingDirectoryIsNotAnError) {
  EXPECT_EQ(remove_stale_regions(directory_ / "absent"), 0U);
}

}  // namespace
}  // namespace railyard::shm
