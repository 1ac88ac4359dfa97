// A program that sets FI_OFI_MRAIL_CONFIG itself, after railyard loaded and
// before any libfabric call (as railyard-mrail-bench's subjects do): the
// first fi_getinfo, railyard's, lets libfabric's ofi_mrail cut the variable
// at its first comma in place; railyard must still see the whole value.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "railyard/common/detail/env.h"
#include "railyard/fabric/info.h"
#include "railyard/mrail/policy_table.h"

namespace railyard {
namespace {

constexpr const char* kConfig = "2k:fixed,-1:round-robin";

std::string live(const char* name) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): tests are serial
  return value != nullptr ? value : "<unset>";
}

TEST(EnvironmentSetAtRuntime, SurvivesOfiMrailRewritingItAtRailyardsFirstGetinfo) {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): one thread
  ASSERT_EQ(::setenv("FI_OFI_MRAIL_CONFIG", kConfig, 1), 0);
  fabric::FabricInfo hints = fabric::FabricInfo::allocate();
  fabric::FabricInfo found;
  (void)fabric::get_info(nullptr, nullptr, 0, hints, found);
  if (live("FI_OFI_MRAIL_CONFIG") == kConfig) {
    GTEST_SKIP() << "this libfabric's ofi_mrail left FI_OFI_MRAIL_CONFIG as it was: nothing to "
                    "protect against here";
  }
  EXPECT_EQ(live("FI_OFI_MRAIL_CONFIG"), "2k:fixed") << "ofi_mrail cut it at the first comma";
  EXPECT_EQ(env::get("FI_OFI_MRAIL_CONFIG").value_or("<unset>"), kConfig);
  EXPECT_EQ(mrail::PolicyTable::from_environment().describe(), "0-2048 fixed, 2049+ round-robin");
}

}  // namespace
}  // namespace railyard
