// railyard-mrail-bench's --setting subjects: grouped by name, refused with
// the entry named when malformed or not a railyard or libfabric variable.
#include "setting_subjects.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "railyard/common/error.h"

namespace railyard::bench {
namespace {

TEST(SettingSubjects, EntriesWithOneNameSetSeveralVariables) {
  const auto subjects =
      parse_setting_subjects({"nofailover=RAILYARD_RAIL_TIMEOUT=0",
                              "small=RAILYARD_FRAGMENT_SIZE=16k", "nofailover=FI_NET_IFACE=lo"});
  ASSERT_EQ(subjects.size(), 2U);
  EXPECT_EQ(subjects[0].name, "nofailover");
  using Setting = std::pair<std::string, std::string>;
  EXPECT_EQ(subjects[0].environment,
            (std::vector<Setting>{{"RAILYARD_RAIL_TIMEOUT", "0"}, {"FI_NET_IFACE", "lo"}}));
  EXPECT_EQ(subjects[1].name, "small");
  EXPECT_EQ(subjects[1].environment, (std::vector<Setting>{{"RAILYARD_FRAGMENT_SIZE", "16k"}}));
  // A value may hold '=' and may be empty.
  const auto odd = parse_setting_subjects({"x=RAILYARD_ALGO=a=b", "y=RAILYARD_SHM="});
  EXPECT_EQ(odd[0].environment.front().second, "a=b");
  EXPECT_EQ(odd[1].environment.front().second, "");
}

TEST(SettingSubjects, MalformedEntriesAreRefusedByName) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"nofailover", "expected NAME=VARIABLE=VALUE"},
      {"=RAILYARD_RAIL_TIMEOUT=0", "expected NAME=VARIABLE=VALUE"},
      {"x==0", "expected NAME=VARIABLE=VALUE"},
      {"x=RAILYARD_RAIL_TIMEOUT", "expected NAME=VARIABLE=VALUE"},
      {"x=HOME=/tmp", "expected a variable of railyard's (RAILYARD_...) or libfabric's"},
  };
  for (const auto& [entry, expected] : cases) {
    try {
      (void)parse_setting_subjects({entry});
      ADD_FAILURE() << entry << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.input(), "--setting");
      EXPECT_EQ(e.value(), entry);
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace railyard::bench
