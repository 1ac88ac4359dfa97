#include "railyard/rail/rail_limits.h"

#include <gtest/gtest.h>

#include "railyard/common/error.h"

namespace railyard::rail {
namespace {

RailLimits capable() {
  RailLimits limits;
  limits.provider = "example";
  limits.caps = kRailCaps;
  limits.max_message_size = 1ULL << 30;
  limits.tx_queue_size = 128;
  limits.rx_queue_size = 128;
  limits.mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
  return limits;
}

std::string refusal(const RailLimits& limits) {
  try {
    require_rail_limits(limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(RailLimits, AcceptsACapableProvider) { EXPECT_EQ(refusal(capable()), "accepted"); }

TEST(RailLimits, NamesEachMissingCapability) {
  auto no_rma = capable();
  no_rma.caps &= ~FI_REMOTE_READ;
  EXPECT_NE(
      refusal(no_rma).find("provider 'example' cannot carry a rail: it lacks RMA read and write"),
      std::string::npos);

  auto no_tagged = capable();
  no_tagged.caps &= ~FI_TAGGED;
  EXPECT_NE(refusal(no_tagged).find("FI_MSG and FI_TAGGED"), std::string::npos);

  auto small = capable();
  small.max_message_size = 4096;
  small.rx_queue_size = 4;
  const auto both = refusal(small);
  EXPECT_NE(both.find("messages of at least 65536 bytes (its maximum is 4096)"), std::string::npos)
      << both;
  EXPECT_NE(both.find(" and queues of at least 16 entries (it offers tx 128, rx 4)"),
            std::string::npos)
      << both;

  auto mmu = capable();
  mmu.mr_mode |= FI_MR_MMU_NOTIFY;
  EXPECT_NE(refusal(mmu).find("FI_MR_MMU_NOTIFY"), std::string::npos);
}

TEST(RailLimits, PrintsModes) {
  EXPECT_EQ(capable().mr_mode_string(), "FI_MR_LOCAL|FI_MR_VIRT_ADDR|FI_MR_PROV_KEY");
  RailLimits none;
  EXPECT_EQ(none.mr_mode_string(), "none");
  EXPECT_EQ(caps_string(FI_MSG | FI_RMA), "FI_MSG|FI_RMA");
}

}  // namespace
}  // namespace railyard::rail
