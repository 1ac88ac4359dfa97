// The environment libfabric rewrites: this executable starts with
// FI_OFI_MRAIL_CONFIG and FI_OFI_MRAIL_ADDR holding comma lists (set by
// CTest), then calls fi_getinfo, which initialises libfabric's ofi_mrail
// provider; that provider cuts both variables at their first comma in place.
// railyard must still see the values the process started with.
#include <gtest/gtest.h>
#include <rdma/fabric.h>

#include <cstdlib>
#include <string>

#include "railyard/common/detail/env.h"
#include "railyard/mrail/policy_table.h"
#include "railyard/mrail/rail_addresses.h"

namespace railyard {
namespace {

constexpr const char* kConfig = "4k:fixed,-1:striping";
constexpr const char* kAddresses = "127.0.0.1,127.0.0.2";

std::string live(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): tests are serial
  return value != nullptr ? value : "<unset>";
}

TEST(EnvironmentCapture, SurvivesOfiMrailRewritingItsVariables) {
  ASSERT_EQ(live("FI_OFI_MRAIL_CONFIG"), kConfig) << "CTest sets the variables for this test";
  ASSERT_EQ(live("FI_OFI_MRAIL_ADDR"), kAddresses);

  fi_info* info = nullptr;
  (void)fi_getinfo(fi_version(), nullptr, nullptr, 0, nullptr, &info);
  fi_freeinfo(info);
  if (live("FI_OFI_MRAIL_CONFIG") == kConfig) {
    GTEST_SKIP() << "this libfabric's ofi_mrail left FI_OFI_MRAIL_CONFIG as it was: nothing to "
                    "protect against here";
  }
  EXPECT_EQ(live("FI_OFI_MRAIL_CONFIG"), "4k:fixed") << "ofi_mrail cut it at the first comma";

  EXPECT_EQ(env::get("FI_OFI_MRAIL_CONFIG").value_or("<unset>"), kConfig);
  EXPECT_EQ(mrail::PolicyTable::from_environment().describe(), "0-4096 fixed, 4097+ striping");
  EXPECT_EQ(env::get("FI_OFI_MRAIL_ADDR").value_or("<unset>"), kAddresses);
  EXPECT_EQ(mrail::rail_addresses_from_environment(),
            (std::vector<std::string>{"127.0.0.1", "127.0.0.2"}));
}

}  // namespace
}  // namespace railyard
