// Rank cards: the machine layout one rank per host carries for the others
// survives the wire exactly, a malformed card names its rank and the fault,
// and each rank maps its rails on the layout of its host's lowest rank that
// carries one, or reads its own.
#include <sched.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "railyard/comm/detail/rank_card.h"
#include "railyard/comm/detail/rank_rails.h"
#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/error.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/machine_layout.h"
#include "railyard/topology/process_binding.h"
#include "scoped_env.h"

namespace railyard::comm::detail {
namespace {

using railyard::testing::ScopedEnv;

const std::string kFourNodes =
    std::string(RAILYARD_TEST_DATA_DIR) + "/topologies/96em64t-4n4d3ca2co-pci.xml";

HostMachine four_node_machine() {
  HostMachine machine;
  machine.layout =
      topology::describe_machine(topology::HwlocTopology::load_xml(kFourNodes, "test"));
  machine.this_machine = false;
  // Kernel state is only read on this machine; give one NIC some, so the
  // optional fields and the address list cross the wire too.
  machine.layout.nics.at(0).speed_mbps = 25000;
  machine.layout.nics.at(0).addresses = {"198.18.1.1", "fe80::1"};
  machine.layout.nics.at(0).loopback = true;
  return machine;
}

void expect_same(const topology::MachineLayout& a, const topology::MachineLayout& b) {
  EXPECT_EQ(a.origin, b.origin);
  EXPECT_EQ(a.cpus, b.cpus);
  ASSERT_EQ(a.numa_nodes.size(), b.numa_nodes.size());
  for (std::size_t i = 0; i < a.numa_nodes.size(); ++i) {
    EXPECT_EQ(a.numa_nodes[i].os_index, b.numa_nodes[i].os_index);
    EXPECT_EQ(a.numa_nodes[i].cpus, b.numa_nodes[i].cpus);
  }
  ASSERT_EQ(a.packages.size(), b.packages.size());
  for (std::size_t i = 0; i < a.packages.size(); ++i) {
    EXPECT_EQ(a.packages[i].os_index, b.packages[i].os_index);
    EXPECT_EQ(a.packages[i].cpus, b.packages[i].cpus);
  }
  ASSERT_EQ(a.nics.size(), b.nics.size());
  for (std::size_t i = 0; i < a.nics.size(); ++i) {
    const auto& x = a.nics[i];
    const auto& y = b.nics[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.openfabrics, y.openfabrics);
    EXPECT_EQ(x.pci_bus_id, y.pci_bus_id);
    EXPECT_EQ(x.pci_device, y.pci_device);
    EXPECT_EQ(x.numa_nodes, y.numa_nodes);
    EXPECT_EQ(x.packages, y.packages);
    EXPECT_EQ(x.speed_mbps, y.speed_mbps);
    EXPECT_EQ(x.addresses, y.addresses);
    EXPECT_EQ(x.up, y.up);
    EXPECT_EQ(x.loopback, y.loopback);
    EXPECT_EQ(x.virtual_device, y.virtual_device);
    EXPECT_EQ(x.has_netdev, y.has_netdev);
  }
}

RankCard card_on(const std::string& host, bool with_machine) {
  RankCard card;
  card.host = host;
  card.cpus = {0, 1, 2, 3};
  if (with_machine) {
    card.machine = four_node_machine();
  }
  return card;
}

TEST(RankCard, CarriesTheHostsMachineLayoutExactly) {
  const RankCard sent = card_on("node7/netns:4026531840", true);
  ASSERT_GE(sent.machine->layout.nics.size(), 2U) << "the test topology has several NICs";
  const RankCard got = decode_rank_card(encode(sent), 3);
  EXPECT_EQ(got.host, sent.host);
  EXPECT_EQ(got.cpus, sent.cpus);
  ASSERT_TRUE(got.machine);
  EXPECT_FALSE(got.machine->this_machine);
  expect_same(got.machine->layout, sent.machine->layout);
}

TEST(RankCard, WithoutALayoutStaysSmall) {
  const RankCard got = decode_rank_card(encode(card_on("node7", false)), 0);
  EXPECT_FALSE(got.machine);
  EXPECT_EQ(got.cpus, (std::vector<unsigned>{0, 1, 2, 3}));
}

std::string decode_error(const bootstrap::Blob& blob, int rank) {
  try {
    (void)decode_rank_card(blob, rank);
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

TEST(RankCard, AMalformedLayoutNamesTheRankAndTheFault) {
  const bootstrap::Blob good = encode(card_on("node7", true));
  // Cut anywhere inside the layout: refused, never read past the end.
  for (const std::size_t cut : {good.size() - 1, good.size() / 2, std::size_t{40}}) {
    const bootstrap::Blob cut_short(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_NE(decode_error(cut_short, 5).find("rank 5"), std::string::npos)
        << "cut at " << cut << ": " << decode_error(cut_short, 5);
  }
  // A NIC count far past the bytes left: refused before allocating.
  bootstrap::Blob huge_count;
  ByteWriter writer(huge_count);
  writer.u8(RankCard::kVersion);
  writer.string16("node7");
  writer.u32(0);        // no CPUs
  writer.u8(1);         // a layout follows
  writer.u8(1);         // this machine
  writer.string16("");  // origin
  writer.u32(0);        // NUMA nodes
  writer.u32(0);        // packages
  writer.u32(0);        // CPUs
  writer.u32(0x7FFFFFFF);
  const std::string error = decode_error(huge_count, 2);
  EXPECT_NE(error.find("rank 2"), std::string::npos) << error;
  EXPECT_NE(error.find("2147483647 NICs"), std::string::npos) << error;
  // A layout flag that is neither 0 nor 1.
  bootstrap::Blob bad_flag = encode(card_on("node7", false));
  // The machine flag, before the settings' count (0 here).
  bad_flag[bad_flag.size() - 2] = std::byte{7};
  EXPECT_NE(decode_error(bad_flag, 1).find("machine flag of 7"), std::string::npos)
      << decode_error(bad_flag, 1);
}

TEST(RankCard, AnOlderVersionIsRefusedByName) {
  bootstrap::Blob old = encode(card_on("node7", false));
  old.front() = std::byte{1};
  const std::string error = decode_error(old, 4);
  EXPECT_NE(error.find("rank 4 joined with rank card version 1"), std::string::npos) << error;
}

TEST(HostMachine, ComesFromTheHostsLowestRankThatCarriesOne) {
  // Ranks 0 and 2 on host a, 1 and 3 on host b; on a, rank 2 carries the
  // layout (its launcher numbered it local rank 0); rank 1 on b carries
  // another, which rank 0 must not take.
  std::vector<RankCard> cards{card_on("a", false), card_on("b", true), card_on("a", true),
                              card_on("b", false)};
  cards[1].machine->layout.origin = "host b";
  cards[2].machine->layout.origin = "host a";
  int from = -2;
  const HostMachine on_a = host_machine_for(cards, host_peers(cards, 0), from);
  EXPECT_EQ(from, 2);
  EXPECT_EQ(on_a.layout.origin, "host a");
  const HostMachine on_b = host_machine_for(cards, host_peers(cards, 3), from);
  EXPECT_EQ(from, 1);
  EXPECT_EQ(on_b.layout.origin, "host b");
}

TEST(HostMachine, WithoutOneOnItsHostARankReadsItsOwn) {
  const ScopedEnv from_file("RAILYARD_TOPOLOGY", kFourNodes.c_str());
  const std::vector<RankCard> cards{card_on("a", false), card_on("b", true)};
  int from = -2;
  const HostMachine mine = host_machine_for(cards, host_peers(cards, 0), from);
  EXPECT_EQ(from, -1);
  EXPECT_EQ(mine.layout.origin, kFourNodes);
  EXPECT_FALSE(mine.this_machine);
  EXPECT_EQ(mine.layout.cpus.size(), 96U);
}

TEST(HostMachine, OnlyLocalRankZeroReadsItAndNobodyWhenTheRailsAreNamed) {
  {
    const ScopedEnv unnamed("FI_OFI_MRAIL_ADDR", nullptr);
    const ScopedEnv unnamed_strc("FI_OFI_MRAIL_ADDR_STRC", nullptr);
    EXPECT_TRUE(reads_host_machine_for_card(0U));
    EXPECT_TRUE(reads_host_machine_for_card(std::nullopt));  // no hint: read, to be safe
    EXPECT_FALSE(reads_host_machine_for_card(3U));
  }
  const ScopedEnv named("FI_OFI_MRAIL_ADDR", "127.0.0.1");
  EXPECT_FALSE(reads_host_machine_for_card(0U));
  EXPECT_FALSE(reads_host_machine_for_card(std::nullopt));
}

TEST(ProcessBinding, AgreesWithHwlocAndFollowsTheAffinityMask) {
  const auto topology = topology::HwlocTopology::load_this_machine();
  EXPECT_EQ(topology::process_binding(), topology::current_binding(topology));
  // Bound to its first CPU, a thread reads exactly that CPU.
  const unsigned first = topology::process_binding().front();
  std::vector<unsigned> seen;
  std::thread bound([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
    seen = topology::process_binding();
  });
  bound.join();
  EXPECT_EQ(seen, std::vector<unsigned>{first});
}

}  // namespace
}  // namespace railyard::comm::detail
