// The benchmark's self-check of its baselines: a baseline launched wrong is
// reported as misconfigured, a plausible one passes.
#include "baseline_check.h"
#include "subject_rows.h"

#include <gtest/gtest.h>

#include <string>

namespace railyard::bench {
namespace {

using testing::subject;

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BaselineCheck, APlausibleBaselinePasses) {
  const SubjectResult rail = subject("raw", 6.6, 119.5);
  EXPECT_EQ(misconfiguration(subject("openmpi", 9.1, 477.0), &rail), std::nullopt);
  // About one rail's figure (a baseline on one interface) is not below it.
  EXPECT_EQ(misconfiguration(subject("openmpi", 9.1, 116.0), &rail), std::nullopt);
}

TEST(BaselineCheck, LatencyOfASchedulerTickIsMisconfigured) {
  const SubjectResult rail = subject("raw", 6.6, 119.5);
  const auto why = misconfiguration(subject("openmpi", 4012.5, 477.0), &rail);
  ASSERT_TRUE(why);
  EXPECT_TRUE(mentions(*why, "4012.5 us")) << *why;
  EXPECT_TRUE(mentions(*why, "at 8")) << *why;
  EXPECT_TRUE(mentions(*why, "100 us")) << *why;
  // Without a raw rail in the run, latency is still checked.
  EXPECT_TRUE(misconfiguration(subject("openmpi", 4012.5, 477.0), nullptr));
}

// A run of large messages only: 135 us at 64 KiB is the wire, not a
// scheduler tick.
TEST(BaselineCheck, LatencyOfLargeMessagesIsNotJudged) {
  const SubjectResult rail = subject("raw", 6.6, 119.5);
  SubjectResult large;
  large.name = "openmpi";
  large.rows.push_back(Measurement{65536, 135.4, 477.0});
  large.rows.push_back(Measurement{1 << 20, 1098.7, 478.1});
  EXPECT_EQ(misconfiguration(large, &rail), std::nullopt);
  // Its bandwidth is still judged.
  large.rows.front().bandwidth_mbps = 33.0;
  EXPECT_TRUE(misconfiguration(large, &rail));
}

TEST(BaselineCheck, LessThanOneRailFrom64KiBIsMisconfigured) {
  const SubjectResult rail = subject("raw", 6.6, 119.5);
  const auto why = misconfiguration(subject("openmpi", 9.0, 33.0), &rail);
  ASSERT_TRUE(why);
  EXPECT_TRUE(mentions(*why, "33.0 MB/s at 64K")) << *why;
  EXPECT_TRUE(mentions(*why, "119.5 MB/s")) << *why;
  // Without a raw rail there is nothing to compare the bandwidth with.
  EXPECT_EQ(misconfiguration(subject("openmpi", 9.0, 33.0), nullptr), std::nullopt);
}

TEST(BaselineCheck, TheRawRailAndFailedSubjectsAreNotJudgedOnBandwidth) {
  const SubjectResult rail = subject("raw", 6.6, 119.5);
  EXPECT_EQ(misconfiguration(rail, &rail), std::nullopt);
  SubjectResult failed = subject("openmpi", 4000, 1);
  failed.error = "mpirun exited with status 1";
  EXPECT_EQ(misconfiguration(failed, &rail), std::nullopt);
  // A failed raw rail is no reference.
  SubjectResult failed_rail = rail;
  failed_rail.error = "stopped";
  EXPECT_EQ(misconfiguration(subject("openmpi", 9.0, 33.0), &failed_rail), std::nullopt);
}

}  // namespace
}  // namespace railyard::bench
