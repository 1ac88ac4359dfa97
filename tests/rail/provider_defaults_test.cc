// The libfabric settings railyard applies when it is loaded: which ones for
// which rail provider, and, in fresh processes (they are applied before
// main), that they are set when the user has not set them, left alone when
// the user has, skipped for other providers, and logged when a rail opens.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "child_output.h"
#include "railyard/rail/provider_defaults.h"
#include "railyard/rail/rail.h"

namespace railyard::rail {
namespace {

using namespace std::chrono_literals;

constexpr const char* kChildMarker = "RAILYARD_TEST_PROVIDER_DEFAULTS_CHILD";

using testing::ChildOutput;

// Runs this test binary's ProviderDefaultsChild.Report in a new process
// whose environment differs from ours by `changes` (a nullopt unsets).
ChildOutput run_child(const testing::EnvironmentChanges& changes) {
  testing::EnvironmentChanges all{{kChildMarker, "1"}};
  all.insert(all.end(), changes.begin(), changes.end());
  return testing::run_program({"/proc/self/exe", "--gtest_filter=ProviderDefaultsChild.Report"},
                              all, 60s);
}

TEST(ProviderDefaults, TcpRailsGetASmallerSharedReceiveQueue) {
  const auto settings = provider_defaults_for("tcp;ofi_rxm");
  ASSERT_EQ(settings.size(), 1U);
  EXPECT_STREQ(settings[0].variable, "FI_OFI_RXM_MSG_RX_SIZE");
  EXPECT_STREQ(settings[0].value, "256");
}

TEST(ProviderDefaults, OtherProvidersKeepLibfabricsDefaults) {
  EXPECT_TRUE(provider_defaults_for("verbs;ofi_rxm").empty());
  EXPECT_TRUE(provider_defaults_for("net").empty());
  EXPECT_TRUE(provider_defaults_for("shm").empty());
  EXPECT_TRUE(provider_defaults_for("tcp").empty());  // no ofi_rxm above it
}

TEST(ProviderDefaults, SetAtLoadWhenUnsetAndLoggedWhenARailOpens) {
  const auto child = run_child({{"FI_OFI_RXM_MSG_RX_SIZE", std::nullopt},
                                {"RAILYARD_PROVIDER", "tcp;ofi_rxm"},
                                {"RAILYARD_LOG", "info"}});
  ASSERT_EQ(child.status, 0) << child.out << child.err;
  EXPECT_NE(child.out.find("REPORT value=256 user=(none)"), std::string::npos) << child.out;
  EXPECT_NE(child.err.find("libfabric: FI_OFI_RXM_MSG_RX_SIZE=256 set by railyard"),
            std::string::npos)
      << child.err;
}

TEST(ProviderDefaults, TheUsersValueWins) {
  const auto child = run_child({{"FI_OFI_RXM_MSG_RX_SIZE", "4096"},
                                {"RAILYARD_PROVIDER", "tcp;ofi_rxm"},
                                {"RAILYARD_LOG", "info"}});
  ASSERT_EQ(child.status, 0) << child.out << child.err;
  EXPECT_NE(child.out.find("REPORT value=4096 user=4096"), std::string::npos) << child.out;
  EXPECT_NE(child.err.find("FI_OFI_RXM_MSG_RX_SIZE=4096 as the user set it"), std::string::npos)
      << child.err;
}

TEST(ProviderDefaults, NothingIsSetForTheDefaultProvider) {
  const auto child =
      run_child({{"FI_OFI_RXM_MSG_RX_SIZE", std::nullopt}, {"RAILYARD_PROVIDER", std::nullopt}});
  ASSERT_EQ(child.status, 0) << child.out << child.err;
  EXPECT_NE(child.out.find("REPORT value=(unset) user=(none) settings=0"), std::string::npos)
      << child.out;
}

TEST(ProviderDefaults, NothingIsSetForAnotherRailProvider) {
  const auto child =
      run_child({{"FI_OFI_RXM_MSG_RX_SIZE", std::nullopt}, {"RAILYARD_PROVIDER", "verbs;ofi_rxm"}});
  ASSERT_EQ(child.status, 0) << child.out << child.err;
  EXPECT_NE(child.out.find("REPORT value=(unset) user=(none) settings=0"), std::string::npos)
      << child.out;
}

// Runs only in the processes the tests above start: reports the variable
// as the process sees it after load, and opens a rail of RAILYARD_PROVIDER's
// provider when railyard applied settings for it (so the log line can be
// checked).
TEST(ProviderDefaultsChild, Report) {
  if (std::getenv(kChildMarker) == nullptr) {  // NOLINT(concurrency-mt-unsafe)
    GTEST_SKIP() << "runs only in a child process of the ProviderDefaults tests";
  }
  const char* value = std::getenv("FI_OFI_RXM_MSG_RX_SIZE");  // NOLINT(concurrency-mt-unsafe)
  const auto& applied = applied_provider_defaults();
  std::string user = "(none)";
  if (!applied.empty() && applied.front().user_value) {
    user = *applied.front().user_value;
  }
  std::printf("REPORT value=%s user=%s settings=%zu\n", value != nullptr ? value : "(unset)",
              user.c_str(), applied.size());
  std::fflush(stdout);
  if (!applied.empty()) {
    const Rail rail;
    EXPECT_FALSE(rail.name().empty());
  }
}

}  // namespace
}  // namespace railyard::rail
