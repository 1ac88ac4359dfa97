#include "railyard/common/detail/log.h"

#include <gtest/gtest.h>

#include "railyard/common/error.h"
#include "scoped_env.h"

namespace railyard {
namespace {

TEST(Log, AcceptsEveryDocumentedLevel) {
  for (const char* level : {"error", "warn", "info", "debug", "trace", "off", "INFO"}) {
    testing::ScopedEnv env("RAILYARD_LOG", level);
    EXPECT_NO_THROW(log::check_environment()) << level;
  }
  testing::ScopedEnv unset("RAILYARD_LOG", nullptr);
  EXPECT_NO_THROW(log::check_environment());
}

TEST(Log, RejectsAnUnknownLevelByName) {
  testing::ScopedEnv env("RAILYARD_LOG", "loud");
  try {
    log::check_environment();
    FAIL() << "no exception";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), "RAILYARD_LOG");
    EXPECT_EQ(e.value(), "loud");
    EXPECT_NE(std::string(e.what()).find("error, warn, info, debug, trace or off"),
              std::string::npos);
  }
}

TEST(Log, LevelFiltersMessages) {
  const auto saved = log::level();
  log::set_level(log::Level::kWarn);
  EXPECT_TRUE(log::enabled(log::Level::kError));
  EXPECT_TRUE(log::enabled(log::Level::kWarn));
  EXPECT_FALSE(log::enabled(log::Level::kInfo));
  log::set_level(log::Level::kOff);
  EXPECT_FALSE(log::enabled(log::Level::kError));
  log::set_level(saved);
}

}  // namespace
}  // namespace railyard
