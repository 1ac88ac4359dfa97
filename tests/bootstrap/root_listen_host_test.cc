// Where a job's root rank listens when the program forms the job itself
// (the C API's unique ids, the torch backend): RAILYARD_UNIQUE_ID_HOST, a
// preferred address of this host, or the first interface that is up.
#include "railyard/bootstrap/root_listen_host.h"

#include <gtest/gtest.h>

#include <string>

#include "railyard/common/error.h"
#include "scoped_env.h"

namespace railyard::bootstrap {
namespace {

using testing::ScopedEnv;

TEST(RootListenHost, TakesThePreferredAddressWhenItIsThisHosts) {
  const ScopedEnv unset(kRootHostVariable, nullptr);
  EXPECT_EQ(root_listen_host("127.0.0.1"), "127.0.0.1");
}

TEST(RootListenHost, PassesOverAPreferredAddressOfAnotherHost) {
  const ScopedEnv unset(kRootHostVariable, nullptr);
  // 192.0.2.0/24 is for documentation: no host of ours has it.
  const std::string chosen = root_listen_host("192.0.2.7");
  EXPECT_NE(chosen, "192.0.2.7");
  EXPECT_EQ(chosen, root_listen_host());
}

TEST(RootListenHost, TheVariableWinsAndNamesAnInterfaceOrAnAddress) {
  {
    const ScopedEnv by_name(kRootHostVariable, "lo");
    EXPECT_EQ(root_listen_host("192.0.2.7"), "127.0.0.1");
  }
  {
    const ScopedEnv as_given(kRootHostVariable, "192.0.2.9");
    EXPECT_EQ(root_listen_host("127.0.0.1"), "192.0.2.9");
  }
  for (const char* bad : {"", "two words"}) {
    const ScopedEnv wrong(kRootHostVariable, bad);
    try {
      (void)root_listen_host();
      ADD_FAILURE() << "'" << bad << "' was taken";
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.input(), kRootHostVariable);
      EXPECT_EQ(error.value(), bad);
    }
  }
}

}  // namespace
}  // namespace railyard::bootstrap
