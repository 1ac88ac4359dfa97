// FI_OFI_MRAIL_CONFIG and FI_OFI_MRAIL_ADDR: every valid form accepted, every
// invalid one refused with a message that names the variable, the entry and
// what was expected.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "railyard/common/detail/local_rank.h"
#include "railyard/common/error.h"
#include "railyard/mrail/endpoint.h"
#include "railyard/mrail/options.h"
#include "railyard/mrail/policy_table.h"
#include "railyard/mrail/rail_addresses.h"
#include "railyard/rail/wait_policy.h"
#include "scoped_env.h"

namespace railyard::mrail {
namespace {

using testing::ScopedEnv;
constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

struct ValidTable {
  const char* text;
  std::vector<PolicyTable::Entry> entries;
};

class ValidPolicyTables : public ::testing::TestWithParam<ValidTable> {};

TEST_P(ValidPolicyTables, Parse) {
  const auto table = PolicyTable::parse("FI_OFI_MRAIL_CONFIG", GetParam().text);
  ASSERT_EQ(table.entries().size(), GetParam().entries.size());
  for (std::size_t i = 0; i < table.entries().size(); ++i) {
    EXPECT_EQ(table.entries()[i].max_size, GetParam().entries[i].max_size) << i;
    EXPECT_EQ(table.entries()[i].policy, GetParam().entries[i].policy) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Values, ValidPolicyTables,
    ::testing::Values(ValidTable{"16384:fixed,ULONG_MAX:striping",
                                 {{16384, Policy::kFixed}, {kUnlimited, Policy::kStriping}}},
                      ValidTable{"-1:round-robin", {{kUnlimited, Policy::kRoundRobin}}},
                      ValidTable{"4k:FIXED,64K:Round-Robin,-1:Striping",
                                 {{4096, Policy::kFixed},
                                  {65536, Policy::kRoundRobin},
                                  {kUnlimited, Policy::kStriping}}},
                      ValidTable{" 0 : fixed , 1m : striping ",
                                 {{0, Policy::kFixed}, {1 << 20, Policy::kStriping}}},
                      ValidTable{"1KiB:fixed,2kb:striping",
                                 {{1024, Policy::kFixed}, {2048, Policy::kStriping}}},
                      ValidTable{"18446744073709551615:fixed", {{kUnlimited, Policy::kFixed}}},
                      ValidTable{"ulong_max:fixed", {{kUnlimited, Policy::kFixed}}}));

struct InvalidValue {
  const char* text;
  const char* expected;  // a piece of the message
};

class InvalidPolicyTables : public ::testing::TestWithParam<InvalidValue> {};

TEST_P(InvalidPolicyTables, AreRefusedWithTheReason) {
  try {
    (void)PolicyTable::parse("FI_OFI_MRAIL_CONFIG", GetParam().text);
    FAIL() << "accepted '" << GetParam().text << "'";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.input(), "FI_OFI_MRAIL_CONFIG");
    EXPECT_EQ(e.value(), GetParam().text);
    EXPECT_NE(message.find(std::string("FI_OFI_MRAIL_CONFIG='") + GetParam().text + "' is invalid"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Values, InvalidPolicyTables,
    ::testing::Values(
        InvalidValue{"", "it is empty"}, InvalidValue{"   ", "it is empty"},
        InvalidValue{"16384:stripe", "entry 1 '16384:stripe': unknown policy 'stripe'"},
        InvalidValue{"16384:fixed,-1:roundrobin", "entry 2 '-1:roundrobin': unknown policy"},
        InvalidValue{":striping", "entry 1 ':striping': missing max_size"},
        InvalidValue{"16384:", "missing policy after ':'"},
        InvalidValue{"16384", "missing ':' between size and policy"},
        InvalidValue{"64k:striping,16k:fixed", "does not exceed the previous entry's 65536"},
        InvalidValue{"16k:fixed,16384:striping", "sizes must strictly ascend"},
        InvalidValue{"16kq:fixed", "max_size '16kq' is not a byte count"},
        InvalidValue{"16384:fixed x", "unknown policy 'fixed x'"},
        InvalidValue{"0x4000:fixed", "max_size '0x4000' is not a byte count"},
        InvalidValue{"99999999999999999999:fixed", "overflows 64 bits"},
        InvalidValue{"17179869184g:fixed", "overflows 64 bits"},
        InvalidValue{"16384:fixed,,-1:striping", "entry 2 '': empty entry"},
        InvalidValue{"16384:fixed,", "entry 2 '': empty entry"},
        InvalidValue{"-2:fixed", "max_size '-2'"},
        InvalidValue{"1:fixed:striping", "unknown policy 'fixed:striping'"},
        InvalidValue{"1:fixed,2:fixed,3:fixed,4:fixed,5:fixed,6:fixed,7:fixed,8:fixed,9:fixed,"
                     "10:fixed,11:fixed,12:fixed,13:fixed,14:fixed,15:fixed,16:fixed,17:fixed",
                     "17 entries, at most 16 are allowed"}));

TEST(PolicyTable, ChoosesByInclusiveMaximumAndTheLastCoversTheRest) {
  const auto table = PolicyTable::parse("X", "4k:fixed,64k:round-robin,1m:striping");
  EXPECT_EQ(table.policy_for(0), Policy::kFixed);
  EXPECT_EQ(table.policy_for(4096), Policy::kFixed);
  EXPECT_EQ(table.policy_for(4097), Policy::kRoundRobin);
  EXPECT_EQ(table.policy_for(65536), Policy::kRoundRobin);
  EXPECT_EQ(table.policy_for(65537), Policy::kStriping);
  EXPECT_EQ(table.policy_for(1ULL << 40), Policy::kStriping);  // beyond the last max_size
  EXPECT_EQ(table.describe(), "0-4096 fixed, 4097-65536 round-robin, 65537+ striping");
}

TEST(PolicyTable, DefaultsAndEnvironment) {
  {
    ScopedEnv env("FI_OFI_MRAIL_CONFIG", nullptr);
    const auto table = PolicyTable::from_environment();
    EXPECT_EQ(table.describe(), "0-1024 fixed, 1025-16384 round-robin, 16385+ striping");
    // The constructed default is the table kDefault spells.
    EXPECT_EQ(table.describe(), PolicyTable::parse("X", PolicyTable::kDefault).describe());
  }
  {
    ScopedEnv env("FI_OFI_MRAIL_CONFIG", "1k:fixed, -1:round-robin");
    EXPECT_EQ(PolicyTable::from_environment().policy_for(4096), Policy::kRoundRobin);
    // The environment is read, never written (ofi_mrail's parser cuts it up).
    EXPECT_STREQ(std::getenv("FI_OFI_MRAIL_CONFIG"), "1k:fixed, -1:round-robin");
  }
  {
    ScopedEnv env("FI_OFI_MRAIL_CONFIG", "1k:fast");
    EXPECT_THROW((void)PolicyTable::from_environment(), ConfigError);
  }
}

TEST(RailAddresses, AcceptsEveryFormAndKeepsTheOrder) {
  EXPECT_EQ(parse_rail_addresses("FI_OFI_MRAIL_ADDR", "127.0.0.2,lo,fi_sockaddr_in://127.0.0.3:0"),
            (std::vector<std::string>{"127.0.0.2", "lo", "fi_sockaddr_in://127.0.0.3:0"}));
  EXPECT_EQ(parse_rail_addresses("FI_OFI_MRAIL_ADDR", "127.0.0.1:7001,127.0.0.1:7002").size(), 2U);
}

class InvalidRailAddresses : public ::testing::TestWithParam<InvalidValue> {};

TEST_P(InvalidRailAddresses, AreRefusedWithTheReason) {
  try {
    (void)parse_rail_addresses("FI_OFI_MRAIL_ADDR", GetParam().text);
    FAIL() << "accepted '" << GetParam().text << "'";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.input(), "FI_OFI_MRAIL_ADDR");
    EXPECT_NE(message.find(std::string("FI_OFI_MRAIL_ADDR='") + GetParam().text + "' is invalid"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Values, InvalidRailAddresses,
    ::testing::Values(
        InvalidValue{"", "expected a comma list of rail addresses"},
        InvalidValue{"127.0.0.1,", "entry 2 is empty"},
        InvalidValue{",127.0.0.1", "entry 1 is empty"},
        InvalidValue{"127.0.0.1,,127.0.0.2", "entry 2 is empty"},
        InvalidValue{"127.0.0.1,nosuch0", "entry 2 'nosuch0': 'nosuch0' is not an interface"},
        InvalidValue{"198.51.100.9",
                     "entry 1 '198.51.100.9': 198.51.100.9 is not an address of this host"},
        InvalidValue{"127.0.0.1:70000", "port '70000' is not an integer from 0 to 65535"},
        InvalidValue{"fi_addr_gni://0x1", "FI_ADDR_STR format 'fi_addr_gni' is not supported"},
        InvalidValue{"127.0.0.1,lo",
                     "entries 1 '127.0.0.1' and 2 'lo' are the same address 127.0.0.1"},
        InvalidValue{"127.0.0.1 ,127.0.0.2", "leading or trailing spaces"}));

TEST(RailAddresses, EnvironmentWithDeprecatedFallback) {
  ScopedEnv unset_new("FI_OFI_MRAIL_ADDR", nullptr);
  {
    ScopedEnv unset_old("FI_OFI_MRAIL_ADDR_STRC", nullptr);
    EXPECT_EQ(rail_addresses_from_environment(), (std::vector<std::string>{""}));
  }
  {
    ScopedEnv old("FI_OFI_MRAIL_ADDR_STRC", "127.0.0.2,127.0.0.3");
    EXPECT_EQ(rail_addresses_from_environment(),
              (std::vector<std::string>{"127.0.0.2", "127.0.0.3"}));
    ScopedEnv current("FI_OFI_MRAIL_ADDR", "127.0.0.4");
    EXPECT_EQ(rail_addresses_from_environment(), (std::vector<std::string>{"127.0.0.4"}));
  }
  {
    ScopedEnv old("FI_OFI_MRAIL_ADDR_STRC", "nosuch0");
    try {
      (void)rail_addresses_from_environment();
      FAIL() << "accepted a bad deprecated variable";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.input(), "FI_OFI_MRAIL_ADDR_STRC");
    }
  }
}

}  // namespace
}  // namespace railyard::mrail

namespace railyard::mrail {
namespace {

struct BadVariable {
  const char* name;
  const char* value;
  const char* expected;
};

class InvalidEndpointVariables : public ::testing::TestWithParam<BadVariable> {};

TEST_P(InvalidEndpointVariables, AreRefusedByName) {
  testing::ScopedEnv env(GetParam().name, GetParam().value);
  try {
    (void)Options::from_environment();
    FAIL() << GetParam().name << "='" << GetParam().value << "' was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), GetParam().name);
    EXPECT_NE(std::string(e.what()).find(GetParam().expected), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Values, InvalidEndpointVariables,
    ::testing::Values(
        BadVariable{"RAILYARD_RAIL_WEIGHTS", "1,0", "entry 2 '0' is not a positive number"},
        BadVariable{"RAILYARD_RAIL_WEIGHTS", "1,,2", "entry 2 '' is not a positive number"},
        BadVariable{"RAILYARD_RAIL_WEIGHTS", "1,fast", "entry 2 'fast'"},
        BadVariable{"RAILYARD_RAIL_WEIGHTS", "inf", "entry 1 'inf'"},
        BadVariable{"RAILYARD_MIN_CHUNK", "0", "at least 1 byte"},
        BadVariable{"RAILYARD_MIN_CHUNK", "64kb2", "expected a byte count"},
        BadVariable{"RAILYARD_EAGER_LIMIT", "1g", "expected a size up to"},
        BadVariable{"RAILYARD_FRAGMENT_SIZE", "512", "expected a size from 1k to 16m"},
        BadVariable{"RAILYARD_PULL_CHUNK", "1k",
                    "expected 0 (one read per path) or a size of at least 4k"},
        BadVariable{"RAILYARD_PULL_CHUNK", "big", "expected a byte count"},
        BadVariable{"RAILYARD_PULL_DEPTH", "0", "expected an integer from 1 to 64"},
        BadVariable{"RAILYARD_PULL_DEPTH", "65", "expected an integer from 1 to 64"},
        BadVariable{"RAILYARD_MR_CACHE", "maybe", "expected auto, on or off"},
        BadVariable{"RAILYARD_RAIL_TIMEOUT", "50ms",
                    "expected 0 (failover off) or a duration from 100 ms to 1 h"},
        BadVariable{"RAILYARD_RAIL_TIMEOUT", "soon", "or a duration from"},
        BadVariable{"RAILYARD_RAIL_RETRY", "10ms", "expected a duration from"},
        BadVariable{"RAILYARD_RAIL_RETRY", "0", "expected a duration from"},
        BadVariable{"RAILYARD_UNEXPECTED_PEER_BYTES", "lots", "expected a byte count"},
        BadVariable{"RAILYARD_UNEXPECTED_BYTES", "1q", "expected a byte count"},
        BadVariable{"RAILYARD_BACKGROUND_PROGRESS", "2", "expected an integer from 0 to 1"},
        BadVariable{"RAILYARD_SPIN_US", "-5", "expected an integer from 0 to 1000000"},
        BadVariable{"RAILYARD_SPIN_YIELD", "sometimes", "expected auto, on or off"}));

TEST(EndpointOptions, SpinYieldIsForcedOrLeftToTheCommunicator) {
  const std::array<std::tuple<const char*, bool, bool>, 4> cases{{{nullptr, false, false},
                                                                  {"auto", false, false},
                                                                  {"ON", true, true},
                                                                  {" off ", false, true}}};
  for (const auto& [value, yields, given] : cases) {
    testing::ScopedEnv yield("RAILYARD_SPIN_YIELD", value);
    const rail::WaitPolicy policy = rail::WaitPolicy::from_environment();
    EXPECT_EQ(policy.yield_while_spinning, yields) << (value != nullptr ? value : "unset");
    EXPECT_EQ(policy.yield_given, given) << (value != nullptr ? value : "unset");
  }
}

// On a host with more ranks than cores a wait sleeps at once unless
// RAILYARD_SPIN_US says how long to spin; what the environment forces stays.
TEST(EndpointOptions, AnOversubscribedHostSleepsAtOnceUnlessTheSpinIsGiven) {
  struct Case {
    const char* spin;
    const char* yield;
    bool oversubscribed;
    long expected_spin_us;
    bool expected_yield;
  };
  const std::array<Case, 7> cases{{{nullptr, nullptr, false, 100, false},
                                   {nullptr, nullptr, true, 0, true},
                                   {"40", nullptr, true, 40, true},
                                   {"0", nullptr, false, 0, false},
                                   {nullptr, "on", false, 0, true},
                                   {nullptr, "off", true, 100, false},
                                   {"250", "on", false, 250, true}}};
  for (const Case& c : cases) {
    testing::ScopedEnv spin("RAILYARD_SPIN_US", c.spin);
    testing::ScopedEnv yield("RAILYARD_SPIN_YIELD", c.yield);
    rail::WaitPolicy policy = rail::WaitPolicy::from_environment();
    policy.fit_to_host(c.oversubscribed);
    const std::string name =
        fmt::format("spin {} yield {} oversubscribed {}", c.spin != nullptr ? c.spin : "unset",
                    c.yield != nullptr ? c.yield : "unset", c.oversubscribed);
    EXPECT_EQ(policy.spin.count(), c.expected_spin_us) << name;
    EXPECT_EQ(policy.yield_while_spinning, c.expected_yield) << name;
  }
}

TEST(EndpointOptions, BudgetsAndBackgroundProgressComeFromTheEnvironment) {
  {
    testing::ScopedEnv peer("RAILYARD_UNEXPECTED_PEER_BYTES", nullptr);
    testing::ScopedEnv total("RAILYARD_UNEXPECTED_BYTES", nullptr);
    testing::ScopedEnv background("RAILYARD_BACKGROUND_PROGRESS", nullptr);
    const Options options = Options::from_environment();
    EXPECT_EQ(options.unexpected_peer_bytes, 64U << 20);
    EXPECT_EQ(options.unexpected_bytes, 1ULL << 30);
    EXPECT_TRUE(options.background_progress);
  }
  testing::ScopedEnv peer("RAILYARD_UNEXPECTED_PEER_BYTES", "2m");
  testing::ScopedEnv total("RAILYARD_UNEXPECTED_BYTES", "3GiB");
  testing::ScopedEnv background("RAILYARD_BACKGROUND_PROGRESS", "0");
  const Options options = Options::from_environment();
  EXPECT_EQ(options.unexpected_peer_bytes, 2U << 20);
  EXPECT_EQ(options.unexpected_bytes, 3ULL << 30);
  EXPECT_FALSE(options.background_progress);
}

TEST(EndpointOptions, WeightsParseAndDefaultsHold) {
  EXPECT_EQ(parse_rail_weights("W", "1, 2.5,0.25"), (std::vector<double>{1, 2.5, 0.25}));
  testing::ScopedEnv weights("RAILYARD_RAIL_WEIGHTS", nullptr);
  const Options options = Options::from_environment();
  EXPECT_TRUE(options.rail_weights.empty());
  EXPECT_EQ(options.min_chunk, 65536U);
  EXPECT_EQ(options.eager_limit, 32768U);
  EXPECT_EQ(options.fragment_size, 0U);  // chosen by provider (Endpoint.FragmentSizeFollows...)
  EXPECT_EQ(options.pull_chunk, 32U << 10);
  EXPECT_EQ(options.pull_depth, 4U);
}

TEST(EndpointOptions, PullChunkAndDepthComeFromTheEnvironment) {
  testing::ScopedEnv chunk("RAILYARD_PULL_CHUNK", "1m");
  testing::ScopedEnv depth("RAILYARD_PULL_DEPTH", "2");
  const Options options = Options::from_environment();
  EXPECT_EQ(options.pull_chunk, 1U << 20);
  EXPECT_EQ(options.pull_depth, 2U);
  testing::ScopedEnv whole("RAILYARD_PULL_CHUNK", "0");
  EXPECT_EQ(Options::from_environment().pull_chunk, 0U);
}

TEST(EndpointOptions, LocalRankVariablesAreChecked) {
  testing::ScopedEnv rank("RAILYARD_LOCAL_RANK", "3");
  {
    testing::ScopedEnv size("RAILYARD_LOCAL_SIZE", "2");
    try {
      (void)local_rank_from_environment();
      FAIL() << "rank 3 of 2 accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("expected a value below RAILYARD_LOCAL_SIZE=2"),
                std::string::npos)
          << e.what();
    }
  }
  testing::ScopedEnv size("RAILYARD_LOCAL_SIZE", "8");
  const LocalRank local = local_rank_from_environment();
  EXPECT_EQ(local.rank, 3U);
  EXPECT_EQ(local.size, 8U);
  EXPECT_EQ(local.source, "RAILYARD_LOCAL_RANK");
  testing::ScopedEnv bad("RAILYARD_LOCAL_RANK", "three");
  EXPECT_THROW((void)local_rank_from_environment(), ConfigError);
}

TEST(EndpointOptions, SlurmTasksPerNodeGivesTheLocalSize) {
  EXPECT_EQ(slurm_tasks_on_node("4", 0), 4U);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 2), 2U);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 3), 1U);
  EXPECT_EQ(slurm_tasks_on_node("8,16(x2)", 2), 16U);
  for (const char* bad : {"", "2(x0)", "2(3)", "x", "2,,1", "0", "2(x3"}) {
    EXPECT_THROW((void)slurm_tasks_on_node(bad, 0), ConfigError) << bad;
  }
  EXPECT_THROW((void)slurm_tasks_on_node("2(x3),1", 4), ConfigError);
  // Slurm's variables count inside an srun step only (launch_identity.h).
  testing::ScopedEnv step("SLURM_STEP_ID", "0");
  testing::ScopedEnv rank("SLURM_LOCALID", "5");
  testing::ScopedEnv no_size("SLURM_NTASKS_PER_NODE", nullptr);
  testing::ScopedEnv tasks("SLURM_TASKS_PER_NODE", "4,8(x2)");
  testing::ScopedEnv node("SLURM_NODEID", "1");
  const LocalRank local = local_rank_from_environment();
  EXPECT_EQ(local.rank, 5U);
  EXPECT_EQ(local.size, 8U);
}

TEST(EndpointOptions, AWeightPerRailIsRequired) {
  Options options;
  options.rails = {"127.0.0.1", "127.0.0.2"};
  options.rail_weights = {1, 2, 3};
  try {
    Endpoint endpoint(options);
    FAIL() << "three weights for two rails accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), "RAILYARD_RAIL_WEIGHTS");
    EXPECT_NE(std::string(e.what()).find("expected one weight per rail: 2 rails"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace railyard::mrail
