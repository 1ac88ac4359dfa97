// Rank-to-rail mapping on the real machines' topologies: for 1, 2, 4, 8 and
// 16 ranks per node, bound as launchers bind them, exactly which rails each
// rank gets.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "railyard/common/error.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/local_rails.h"
#include "railyard/topology/rail_mapping.h"
#include "scoped_env.h"

namespace railyard::topology {
namespace {

using Rails = std::vector<std::string>;

MachineLayout machine(const char* file) {
  return describe_machine(
      HwlocTopology::load_xml(std::string(RAILYARD_TEST_DATA_DIR) + "/topologies/" + file));
}

// `--map-by core --bind-to core` (with several cores per rank): rank r of n
// gets the r-th of n equal blocks of the CPUs, NUMA node after NUMA node.
std::vector<RankPlacement> block_bound(const MachineLayout& m, std::size_t n) {
  return launcher_placements(m, static_cast<unsigned>(n), LauncherBinding::kCore);
}

std::vector<Rails> rails_of_every_rank(const MachineLayout& m,
                                       const std::vector<RankPlacement>& ranks,
                                       const MappingOptions& options = {}) {
  std::vector<Rails> out;
  for (unsigned r = 0; r < ranks.size(); ++r) {
    Rails rails;
    for (const auto& nic : map_rails(m, ranks, r, options).rails) {
      rails.push_back(nic.name);
    }
    out.push_back(rails);
  }
  return out;
}

// Four NUMA nodes, each with a two-port card.
TEST(RailMapping, FourNumaNodesBlockBound) {
  const MachineLayout m = machine("96em64t-4n4d3ca2co-pci.xml");
  ASSERT_EQ(m.numa_nodes.size(), 4U);
  ASSERT_EQ(m.nics.size(), 8U);
  // One rank bound to everything counts as unbound: every NIC, first ports first.
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 1)),
            (std::vector<Rails>{{"eth0", "eth2", "eth4", "eth6", "eth1", "eth3", "eth5", "eth7"}}));
  EXPECT_EQ(
      rails_of_every_rank(m, block_bound(m, 2)),
      (std::vector<Rails>{{"eth0", "eth2", "eth1", "eth3"}, {"eth4", "eth6", "eth5", "eth7"}}));
  EXPECT_EQ(
      rails_of_every_rank(m, block_bound(m, 4)),
      (std::vector<Rails>{{"eth0", "eth1"}, {"eth2", "eth3"}, {"eth4", "eth5"}, {"eth6", "eth7"}}));
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 8)),
            (std::vector<Rails>{
                {"eth0"}, {"eth1"}, {"eth2"}, {"eth3"}, {"eth4"}, {"eth5"}, {"eth6"}, {"eth7"}}));
  std::vector<Rails> sixteen;
  for (unsigned r = 0; r < 16; ++r) {
    sixteen.push_back({"eth" + std::to_string(2 * (r / 4) + (r % 4) / 2)});
  }
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 16)), sixteen);

  const RailMapping mapping = map_rails(m, block_bound(m, 16), 5);
  EXPECT_EQ(mapping.level, LocalityLevel::kNumaNode);
  EXPECT_EQ(mapping.domain, "1");
  EXPECT_EQ(mapping.candidates, 2U);
  EXPECT_EQ(mapping.sharing, 4U);
  EXPECT_EQ(mapping.index, 1U);
  EXPECT_FALSE(mapping.unbound);
}

// Every NIC on NUMA node 0 / package 0; NUMA node 1 has none. Ranks on node
// 1 share node 0's NICs with the ranks there.
TEST(RailMapping, NumaNodeWithoutNicsSharesTheOthers) {
  const MachineLayout m = machine("24em64t-2n6c2t-pci.xml");
  ASSERT_EQ(m.numa_nodes.size(), 2U);
  // First ports of the two cards (eth0, eth2), then their second ports.
  const Rails all{"eth0", "eth2", "eth1", "ib0"};
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 1)), std::vector<Rails>{all});
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 2)),
            (std::vector<Rails>{{"eth0", "eth2"}, {"eth1", "ib0"}}));
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 4)),
            (std::vector<Rails>{{"eth0"}, {"eth2"}, {"eth1"}, {"ib0"}}));
  std::vector<Rails> eight;
  std::vector<Rails> sixteen;
  for (unsigned r = 0; r < 16; ++r) {
    if (r < 8) {
      eight.push_back({all[r / 2]});
    }
    sixteen.push_back({all[r / 4]});
  }
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 8)), eight);
  EXPECT_EQ(rails_of_every_rank(m, block_bound(m, 16)), sixteen);

  const RailMapping near = map_rails(m, block_bound(m, 2), 0);
  EXPECT_EQ(near.level, LocalityLevel::kNumaNode);
  const RailMapping far = map_rails(m, block_bound(m, 2), 1);
  EXPECT_EQ(far.level, LocalityLevel::kMachine);
  EXPECT_EQ(far.sharing, 2U);
  EXPECT_EQ(far.index, 1U);
  EXPECT_NE(far.explain(1).find("eth1, ib0"), std::string::npos) << far.explain(1);
}

TEST(RailMapping, RoundRobinOverNumaNodes) {
  const MachineLayout m = machine("96em64t-4n4d3ca2co-pci.xml");
  const auto ranks = launcher_placements(m, 8, LauncherBinding::kNuma);
  // Ranks 0 and 4 share node 0's two NICs, 1 and 5 node 1's ...
  EXPECT_EQ(rails_of_every_rank(m, ranks),
            (std::vector<Rails>{
                {"eth0"}, {"eth2"}, {"eth4"}, {"eth6"}, {"eth1"}, {"eth3"}, {"eth5"}, {"eth7"}}));
  EXPECT_THROW((void)parse_launcher_binding("socket", "--binding"), ConfigError);
}

TEST(RailMapping, UnboundRanksAreSpreadByLocalRank) {
  const MachineLayout m = machine("96em64t-4n4d3ca2co-pci.xml");
  const std::vector<RankPlacement> unbound(4);
  EXPECT_EQ(
      rails_of_every_rank(m, unbound),
      (std::vector<Rails>{{"eth0", "eth1"}, {"eth2", "eth3"}, {"eth4", "eth5"}, {"eth6", "eth7"}}));
  const RailMapping mapping = map_rails(m, unbound, 2);
  EXPECT_TRUE(mapping.unbound);
  EXPECT_NE(mapping.explain(2).find("not bound"), std::string::npos);
}

TEST(RailMapping, RailsOptionAndInterfaceFilter) {
  const MachineLayout m = machine("96em64t-4n4d3ca2co-pci.xml");
  const auto ranks = block_bound(m, 8);
  MappingOptions options;
  options.rails = RailsChoice::parse("3");
  // Its own NIC, its node's other one, then the nearest-first rest.
  EXPECT_EQ(rails_of_every_rank(m, ranks, options)[3], (Rails{"eth3", "eth2", "eth0"}));
  options.rails = RailsChoice::parse("all");
  EXPECT_EQ(map_rails(m, ranks, 0, options).rails.size(), 8U);

  options = {};
  options.filter = InterfaceFilter::parse("^=eth0,eth1");
  // Node 0 has no NIC left: rank 0 shares the machine's with everybody else.
  const RailMapping mapping = map_rails(m, block_bound(m, 4), 0, options);
  EXPECT_EQ(mapping.level, LocalityLevel::kMachine);
  for (const auto& nic : mapping.rails) {
    EXPECT_NE(nic.name, "eth0");
    EXPECT_NE(nic.name, "eth1");
  }

  options.rails = RailsChoice::parse("7");
  try {
    (void)map_rails(m, ranks, 0, options);
    ADD_FAILURE() << "7 rails of 6 accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), "RAILYARD_RAILS");
    EXPECT_NE(std::string(e.what()).find("at most 6"), std::string::npos) << e.what();
  }
}

TEST(RailMapping, BadOptionsAreNamed) {
  for (const char* text : {"", "0", "65", "some", "-1", "2x"}) {
    try {
      (void)RailsChoice::parse(text);
      ADD_FAILURE() << "RAILYARD_RAILS=" << text << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.input(), "RAILYARD_RAILS") << e.what();
      EXPECT_EQ(e.value(), text);
    }
  }
  for (const char* text : {"", "^", "=", "eth,,ib", "eth,", "^=", "e th"}) {
    try {
      (void)InterfaceFilter::parse(text);
      ADD_FAILURE() << "RAILYARD_NET_IFACES=" << text << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.input(), "RAILYARD_NET_IFACES") << e.what();
      EXPECT_EQ(e.value(), text);
    }
  }
  const MachineLayout m = machine("24em64t-2n6c2t-pci.xml");
  MappingOptions options;
  options.filter = InterfaceFilter::parse("wlan");
  try {
    (void)map_rails(m, block_bound(m, 2), 0, options);
    ADD_FAILURE() << "a filter matching nothing accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("eth0, eth1, eth2, ib0"), std::string::npos) << e.what();
  }
  const railyard::testing::ScopedEnv env("RAILYARD_RAILS", "lots");
  EXPECT_THROW((void)MappingOptions::from_environment(), ConfigError);
}

TEST(RailMapping, ThisMachine) {
  const MachineLayout m = describe_machine(HwlocTopology::load_this_machine());
  if (m.nics.empty()) {
    GTEST_SKIP() << "this machine has no up, non-loopback interface";
  }
  const RailMapping mapping = map_rails(m, {RankPlacement{}}, 0);
  EXPECT_FALSE(mapping.rails.empty());
  // One rank on a one-NUMA-node machine uses every NIC.
  if (m.numa_nodes.size() <= 1) {
    EXPECT_EQ(mapping.rails.size(), m.nics.size());
  }
}

TEST(InterfaceFilter, PrefixExactAndExclude) {
  EXPECT_TRUE(InterfaceFilter::parse("eth,ib").matches("eth12"));
  EXPECT_TRUE(InterfaceFilter::parse("eth,ib").matches("ib0"));
  EXPECT_FALSE(InterfaceFilter::parse("eth,ib").matches("enp1s0"));
  EXPECT_FALSE(InterfaceFilter::parse("^docker,lo").matches("docker0"));
  EXPECT_TRUE(InterfaceFilter::parse("^docker,lo").matches("eth0"));
  EXPECT_TRUE(InterfaceFilter::parse("=eth0").matches("eth0"));
  EXPECT_FALSE(InterfaceFilter::parse("=eth0").matches("eth01"));
  EXPECT_FALSE(InterfaceFilter::parse("^=eth0").matches("eth0"));
  EXPECT_TRUE(InterfaceFilter::parse("^=eth0").matches("eth01"));
}

// The "not bound to CPUs" warning is given only where binding could change
// the rails.
TEST(RailMapping, BindingChangesRailsOnlyWhereNicsHaveSeveralLocalities) {
  // Every NUMA node has its own card.
  EXPECT_TRUE(binding_changes_rails(machine("96em64t-4n4d3ca2co-pci.xml")));
  // All NICs hang off NUMA node 0: a rank anywhere gets the same ones.
  EXPECT_FALSE(binding_changes_rails(machine("24em64t-2n6c2t-pci.xml")));
}

}  // namespace
}  // namespace railyard::topology
