#include "railyard/common/error.h"

#include <gtest/gtest.h>
#include <rdma/fi_errno.h>

#include "railyard/common/status.h"

namespace railyard {
namespace {

TEST(FabricError, CarriesCallCodeAndStrerror) {
  const FabricError error("fi_getinfo", -FI_ENODATA, "looking for provider 'x'");
  EXPECT_EQ(error.call(), "fi_getinfo");
  EXPECT_EQ(error.code(), -FI_ENODATA);
  const std::string expected = std::string("fi_getinfo failed: ") + fi_strerror(FI_ENODATA) +
                               " (-61): looking for provider 'x'";
  EXPECT_EQ(error.what(), expected);
}

TEST(FabricError, IsARailyardError) {
  try {
    check_fabric(-FI_EINVAL, "fi_enable", "enabling");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.call(), "fi_enable");
    EXPECT_EQ(e.code(), -FI_EINVAL);
  }
  EXPECT_NO_THROW(check_fabric(0, "fi_enable", "enabling"));
}

TEST(ConfigError, NamesInputValueAndExpectation) {
  const ConfigError error("RAILYARD_PROVIDER", " tcp", "no spaces");
  EXPECT_EQ(error.input(), "RAILYARD_PROVIDER");
  EXPECT_EQ(error.value(), " tcp");
  EXPECT_STREQ(error.what(), "RAILYARD_PROVIDER=' tcp' is invalid: no spaces");
}

TEST(Status, DefaultsToOkAndPrintsCode) {
  EXPECT_TRUE(Status().ok());
  EXPECT_EQ(Status().to_string(), "ok");
  const Status truncated(StatusCode::kTruncated, "too long", FI_ETRUNC);
  EXPECT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.fi_errno(), FI_ETRUNC);
  EXPECT_EQ(truncated.to_string(), "truncated: too long");
}

}  // namespace
}  // namespace railyard
