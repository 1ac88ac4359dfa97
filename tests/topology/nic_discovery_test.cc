// NIC discovery on the real machines' topologies in tests/data and on this
// machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "railyard/common/error.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/nic_discovery.h"
#include "scoped_env.h"

namespace railyard::topology {
namespace {

std::string data_file(const char* name) {
  return std::string(RAILYARD_TEST_DATA_DIR) + "/topologies/" + name;
}

std::vector<std::string> names_of(const std::vector<Nic>& nics) {
  std::vector<std::string> out;
  out.reserve(nics.size());
  for (const auto& nic : nics) {
    out.push_back(nic.name);
  }
  return out;
}

const Nic& find(const std::vector<Nic>& nics, const std::string& name) {
  const auto it =
      std::find_if(nics.begin(), nics.end(), [&](const Nic& nic) { return nic.name == name; });
  if (it == nics.end()) {
    throw std::runtime_error("no NIC " + name);
  }
  return *it;
}

TEST(NicDiscovery, FourNumaNodesWithTwoPortsEach) {
  const auto topology = HwlocTopology::load_xml(data_file("96em64t-4n4d3ca2co-pci.xml"));
  EXPECT_FALSE(topology.is_this_machine());
  const auto nics = discover_nics(topology);
  EXPECT_EQ(names_of(nics), (std::vector<std::string>{"eth0", "eth1", "eth2", "eth3", "eth4",
                                                      "eth5", "eth6", "eth7"}));
  for (unsigned i = 0; i < nics.size(); ++i) {
    const Nic& nic = nics[i];
    EXPECT_EQ(nic.numa_nodes, std::vector<unsigned>{i / 2}) << nic.name;
    // Each NUMA node holds four packages, with interleaved CPUs.
    const unsigned first = 4 * (i / 2);
    EXPECT_EQ(nic.packages, (std::vector<unsigned>{first, first + 1, first + 2, first + 3}))
        << nic.name;
    EXPECT_FALSE(nic.virtual_device);
    EXPECT_TRUE(nic.up);
    EXPECT_TRUE(nic.openfabrics.empty());
    EXPECT_TRUE(nic.addresses.empty()) << "an XML topology has no addresses";
  }
  // Two ports of one card share the PCI device.
  EXPECT_EQ(find(nics, "eth0").pci_bus_id, "0000:02:00.0");
  EXPECT_EQ(find(nics, "eth1").pci_bus_id, "0000:02:00.1");
  EXPECT_EQ(find(nics, "eth0").pci_device, find(nics, "eth1").pci_device);
  EXPECT_NE(find(nics, "eth1").pci_device, find(nics, "eth2").pci_device);
}

TEST(NicDiscovery, OpenFabricsDevicePairedWithItsNetdevs) {
  const auto topology = HwlocTopology::load_xml(data_file("24em64t-2n6c2t-pci.xml"));
  const auto nics = discover_nics(topology);
  EXPECT_EQ(names_of(nics), (std::vector<std::string>{"eth0", "eth1", "eth2", "ib0"}));
  // A ConnectX VPI card: one Ethernet port, one InfiniBand port, one verbs device.
  EXPECT_EQ(find(nics, "eth2").openfabrics, "mlx4_0");
  EXPECT_EQ(find(nics, "ib0").openfabrics, "mlx4_0");
  EXPECT_EQ(find(nics, "ib0").pci_bus_id, "0000:05:00.0");
  EXPECT_TRUE(find(nics, "eth0").openfabrics.empty());
  for (const auto& nic : nics) {
    EXPECT_EQ(nic.numa_nodes, std::vector<unsigned>{0}) << nic.name;
    EXPECT_EQ(nic.packages, std::vector<unsigned>{0}) << nic.name;
    EXPECT_TRUE(nic.has_netdev);
  }
}

TEST(NicDiscovery, ThisMachineListsUpInterfacesWithAddresses) {
  const auto topology = HwlocTopology::load_this_machine();
  EXPECT_TRUE(topology.is_this_machine());
  for (const auto& nic : discover_nics(topology)) {
    EXPECT_TRUE(nic.up) << nic.name;
    EXPECT_FALSE(nic.loopback) << nic.name;
  }
  DiscoveryOptions all;
  all.include_loopback = true;
  all.include_down = true;
  const auto everything = discover_nics(topology, all);
  const Nic& lo = find(everything, "lo");
  EXPECT_TRUE(lo.loopback);
  EXPECT_TRUE(lo.virtual_device) << "the loopback interface is on no PCI bus";
  EXPECT_NE(std::find(lo.addresses.begin(), lo.addresses.end(), "127.0.0.1"), lo.addresses.end());
}

TEST(NicDiscovery, MissingOrGarbledTopologyFilesAreNamed) {
  try {
    const railyard::testing::ScopedEnv env("RAILYARD_TOPOLOGY", "/nonexistent/machine.xml");
    (void)HwlocTopology::from_environment();
    ADD_FAILURE() << "no error for a missing file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), "RAILYARD_TOPOLOGY");
    EXPECT_EQ(e.value(), "/nonexistent/machine.xml");
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  const std::string garbage = ::testing::TempDir() + "railyard-garbage-topology.xml";
  std::ofstream(garbage) << "<topology><object type=\"Machine\"";
  try {
    (void)HwlocTopology::load_xml(garbage, "--topology");
    ADD_FAILURE() << "no error for a garbled file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), "--topology");
    EXPECT_NE(std::string(e.what()).find("hwloc can parse"), std::string::npos) << e.what();
  }
  std::remove(garbage.c_str());
}

}  // namespace
}  // namespace railyard::topology
