// The rails of this process: placement inference from a rank's own binding,
// and the multi-rail endpoint's options taking the mapping when
// FI_OFI_MRAIL_ADDR is unset.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "railyard/common/error.h"
#include "railyard/mrail/endpoint.h"
#include "railyard/mrail/options.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/local_rails.h"
#include "scoped_env.h"

namespace railyard::topology {
namespace {

using railyard::testing::ScopedEnv;

const std::string kFourNodes =
    std::string(RAILYARD_TEST_DATA_DIR) + "/topologies/96em64t-4n4d3ca2co-pci.xml";

std::vector<unsigned> range(unsigned first, unsigned last) {
  std::vector<unsigned> out;
  for (unsigned i = first; i <= last; ++i) {
    out.push_back(i);
  }
  return out;
}

TEST(PlacementInference, BlockRoundRobinAndUnknown) {
  const MachineLayout m = describe_machine(HwlocTopology::load_xml(kFourNodes));
  std::string how;
  // Rank 3 of 8 bound to the 4th block of 12 CPUs: the block layout.
  auto ranks = infer_placements(m, range(36, 47), 3, 8, how);
  EXPECT_NE(how.find("block"), std::string::npos) << how;
  EXPECT_EQ(ranks[0].cpus, range(0, 11));
  EXPECT_EQ(ranks[7].cpus, range(84, 95));
  // Rank 5 bound to one core of NUMA node 1 (5 % 4): round robin by node.
  ranks = infer_placements(m, {30}, 5, 8, how);
  EXPECT_NE(how.find("round robin"), std::string::npos) << how;
  EXPECT_EQ(ranks[2].cpus, m.numa_nodes[2].cpus);
  EXPECT_EQ(ranks[6].cpus, m.numa_nodes[2].cpus);
  // A binding that fits neither: only its own is known.
  ranks = infer_placements(m, {90}, 0, 4, how);
  EXPECT_NE(how.find("unknown"), std::string::npos) << how;
  EXPECT_EQ(ranks[0].cpus, std::vector<unsigned>{90});
  EXPECT_TRUE(ranks[1].cpus.empty());
  // Bound to everything is unbound.
  ranks = infer_placements(m, m.cpus, 1, 2, how);
  EXPECT_NE(how.find("unbound"), std::string::npos) << how;
  EXPECT_TRUE(ranks[1].cpus.empty());
}

TEST(LocalRails, EndpointOptionsTakeTheMappingWithoutRailAddresses) {
  const ScopedEnv unset("FI_OFI_MRAIL_ADDR", nullptr);
  const ScopedEnv unset_old("FI_OFI_MRAIL_ADDR_STRC", nullptr);
  const ScopedEnv topology("RAILYARD_TOPOLOGY", kFourNodes.c_str());
  const ScopedEnv rank("RAILYARD_LOCAL_RANK", "5");
  const ScopedEnv size("RAILYARD_LOCAL_SIZE", "8");
  // Another machine's topology: no binding is known, so rank 5 of 8 is
  // placed on NUMA node 2 with rank 4, and takes its second NIC.
  const mrail::Options options = mrail::Options::from_environment();
  EXPECT_EQ(options.rails, std::vector<std::string>{"eth5"});
  EXPECT_EQ(options.home_rail, std::optional<std::size_t>(0));
  EXPECT_NE(options.home_rail_reason.find("eth5"), std::string::npos);
  {
    const ScopedEnv all("RAILYARD_RAILS", "all");
    EXPECT_EQ(mrail::Options::from_environment().rails.size(), 8U);
  }
  {
    const ScopedEnv filter("RAILYARD_NET_IFACES", "=eth0,eth7");
    // Node 2 has no NIC left: every rank shares the two.
    EXPECT_EQ(mrail::Options::from_environment().rails, std::vector<std::string>{"eth7"});
  }
  // Those interfaces are not this machine's: opening the rails names the
  // missing one and lists what exists.
  try {
    const mrail::Endpoint endpoint{options};
    ADD_FAILURE() << "a rail on eth5 opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("eth5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lo"), std::string::npos) << e.what();
  }
}

TEST(LocalRails, ExplicitRailAddressesOverrideDiscovery) {
  const ScopedEnv addresses("FI_OFI_MRAIL_ADDR", "127.0.0.1");
  const ScopedEnv topology("RAILYARD_TOPOLOGY", "/nonexistent.xml");
  const mrail::Options options = mrail::Options::from_environment();
  EXPECT_EQ(options.rails, std::vector<std::string>{"127.0.0.1"});
  EXPECT_FALSE(options.home_rail.has_value());
}

TEST(LocalRails, BadTopologyVariablesAreErrors) {
  const ScopedEnv unset("FI_OFI_MRAIL_ADDR", nullptr);
  const ScopedEnv unset_old("FI_OFI_MRAIL_ADDR_STRC", nullptr);
  {
    const ScopedEnv topology("RAILYARD_TOPOLOGY", "/nonexistent.xml");
    EXPECT_THROW((void)mrail::Options::from_environment(), ConfigError);
  }
  {
    const ScopedEnv rails("RAILYARD_RAILS", "0");
    EXPECT_THROW((void)mrail::Options::from_environment(), ConfigError);
  }
}

}  // namespace
}  // namespace railyard::topology
