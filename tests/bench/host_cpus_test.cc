// --bind's grammar, and the check that a process ran where it was put.
#include "host_cpus.h"

#include <gtest/gtest.h>

#include <string>

#include "railyard/common/error.h"
#include "railyard/topology/process_binding.h"

namespace railyard::bench {
namespace {

TEST(HostCpus, NoneLeavesBothHostsUnbound) {
  Hosts hosts;
  hosts.cpu_a = 3;
  parse_host_cpus("none", hosts);
  EXPECT_FALSE(hosts.cpu_a.has_value());
  EXPECT_FALSE(hosts.cpu_b.has_value());
}

TEST(HostCpus, TwoAllowedCpusBindHostAThenHostB) {
  const auto allowed = topology::process_binding();
  if (allowed.size() < 2) {
    GTEST_SKIP() << "this process may run on one CPU only";
  }
  Hosts hosts;
  parse_host_cpus(std::to_string(allowed[1]) + "," + std::to_string(allowed[0]), hosts);
  EXPECT_EQ(hosts.cpu_a, allowed[1]);
  EXPECT_EQ(hosts.cpu_b, allowed[0]);
}

TEST(HostCpus, RefusesOneCpuTwiceACpuOutOfReachAndAnythingElse) {
  for (const char* text : {"0,0", "0,99999", "a,b", "0", "0,1,2", "0,", "", "-1,0"}) {
    Hosts hosts;
    try {
      parse_host_cpus(text, hosts);
      ADD_FAILURE() << "accepted --bind " << text;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.input(), "--bind");
      EXPECT_EQ(e.value(), text);
      EXPECT_NE(std::string(e.what()).find("two distinct CPUs"), std::string::npos) << e.what();
    }
  }
}

TEST(HostCpus, AProcessElsewhereThanItsCpuIsNamed) {
  EXPECT_EQ(binding_mismatch("host a's process", "0,1", std::nullopt), "");
  EXPECT_EQ(binding_mismatch("host a's process", "1", 1U), "");
  EXPECT_EQ(binding_mismatch("Open MPI's rank 1", "0,1", 1U),
            "Open MPI's rank 1 ran on CPUs [0,1], not on CPU 1 alone as --bind asked");
  EXPECT_NE(binding_mismatch("host b's process", "?", 0U), "");
}

}  // namespace
}  // namespace railyard::bench
