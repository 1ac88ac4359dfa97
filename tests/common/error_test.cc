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

TEST(Status, CopiesAndMovesKeepTheMessage) {
  const Status original(StatusCode::kUnreachable, "peer 3 went away", FI_ECONNRESET);
  Status copy(original);
  EXPECT_EQ(copy.code(), StatusCode::kUnreachable);
  EXPECT_EQ(copy.fi_errno(), FI_ECONNRESET);
  EXPECT_EQ(copy.message(), "peer 3 went away");
  // The copy owns its text: the original's outlives changes to the copy.
  copy = Status(StatusCode::kCanceled, "canceled by the user");
  EXPECT_EQ(original.message(), "peer 3 went away");
  EXPECT_EQ(copy.to_string(), "canceled: canceled by the user");

  Status moved(std::move(copy));
  EXPECT_EQ(moved.message(), "canceled by the user");
  Status assigned;
  assigned = moved;
  EXPECT_EQ(assigned.to_string(), "canceled: canceled by the user");
  const Status& same = assigned;
  assigned = same;  // self-assignment keeps the text
  EXPECT_EQ(assigned.message(), "canceled by the user");
  assigned = Status();
  EXPECT_TRUE(assigned.ok());
  EXPECT_TRUE(assigned.message().empty());
}

TEST(Status, AnErrorWithoutTextPrintsItsCode) {
  const Status timed_out(StatusCode::kTimedOut, "");
  EXPECT_FALSE(timed_out.ok());
  EXPECT_TRUE(timed_out.message().empty());
  EXPECT_EQ(timed_out.to_string(), "timed out");
  EXPECT_EQ(Status(timed_out).to_string(), "timed out");
}

}  // namespace
}  // namespace railyard
