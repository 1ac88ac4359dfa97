// The start-up line's steps: each mark ends the step under way, the steps
// are listed in the order they were taken, and the total covers them all.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "railyard/comm/detail/startup_steps.h"

namespace {

using railyard::comm::detail::StartupSteps;
using namespace std::chrono_literals;

// The milliseconds written just before `label` in `text`.
double milliseconds_before(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  EXPECT_NE(at, std::string::npos) << text;
  const auto start = text.rfind(' ', at - 1);  // the space before the number
  return std::stod(text.substr(start + 1, at - start - 1));
}

TEST(StartupSteps, ListsEachStepInOrderWithItsTimeAndTheTotal) {
  StartupSteps steps;
  std::this_thread::sleep_for(20ms);
  steps.mark("first");
  steps.mark("second");
  std::this_thread::sleep_for(30ms);
  steps.mark("third");
  const std::string summary = steps.summary();

  const auto first = summary.find(": first ");
  const auto second = summary.find(", second ");
  const auto third = summary.find(", third ");
  ASSERT_NE(first, std::string::npos) << summary;
  ASSERT_NE(second, std::string::npos) << summary;
  ASSERT_NE(third, std::string::npos) << summary;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);

  const double total = std::stod(summary.substr(0, summary.find(" ms: ")));
  EXPECT_GE(total, 50.0) << summary;
  const double first_ms = milliseconds_before(summary, " ms, second");
  const double second_ms = milliseconds_before(summary, " ms, third");
  EXPECT_GE(first_ms, 20.0) << summary;
  EXPECT_LT(second_ms, 20.0) << summary;  // nothing happened between the marks
  EXPECT_GE(total, first_ms + second_ms) << summary;
}

TEST(StartupSteps, WithoutStepsStatesOnlyTheTotal) {
  const StartupSteps steps;
  EXPECT_EQ(steps.summary(), "0.0 ms");
}

}  // namespace
