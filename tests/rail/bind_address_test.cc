#include "railyard/rail/bind_address.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "railyard/common/error.h"

namespace railyard::rail {
namespace {

TEST(BindAddress, AcceptsEveryForm) {
  const auto v4 = resolve_bind_address("test", "127.0.0.1");
  EXPECT_EQ(v4.host, "127.0.0.1");
  EXPECT_EQ(v4.port, 0);
  EXPECT_EQ(v4.family, AF_INET);
  EXPECT_EQ(v4.interface, "lo");

  const auto with_port = resolve_bind_address("test", "127.0.0.2:7000");
  EXPECT_EQ(with_port.host, "127.0.0.2");  // loopback owns its whole /8
  EXPECT_EQ(with_port.port, 7000);
  EXPECT_EQ(with_port.network, "127.0.0.0/8");
  EXPECT_EQ(v4.network, with_port.network);

  const auto by_interface = resolve_bind_address("test", "lo");
  EXPECT_EQ(by_interface.host, "127.0.0.1");  // IPv4 first
  EXPECT_EQ(by_interface.interface, "lo");

  const auto addr_str = resolve_bind_address("test", "fi_sockaddr_in://127.0.0.1:0");
  EXPECT_EQ(addr_str.host, "127.0.0.1");

  const auto by_name = resolve_bind_address("test", "localhost");
  EXPECT_EQ(by_name.interface, "lo");
}

// An interface that exists but has no address (a new network namespace's
// loopback, down) is named as such, not as an unknown name.
TEST(BindAddress, AnInterfaceWithoutAddressIsSaidToBeSo) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "a network namespace of its own needs root";
  }
  EXPECT_EXIT(
      {
        if (::unshare(CLONE_NEWNET) != 0) {
          std::fputs("unshare failed", stderr);
          std::_Exit(2);
        }
        try {
          (void)resolve_bind_address("FI_OFI_MRAIL_ADDR", "lo");
        } catch (const ConfigError& error) {
          std::fputs(error.what(), stderr);
          std::_Exit(0);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0),
      "interface lo has no IP address to bind a rail to \\(it is down\\)");
}

TEST(BindAddress, AcceptsIpv6WhenTheHostHasIt) {
  try {
    const auto v6 = resolve_bind_address("test", "[::1]:5000");
    EXPECT_EQ(v6.host, "::1");
    EXPECT_EQ(v6.port, 5000);
    EXPECT_EQ(v6.family, AF_INET6);
    EXPECT_EQ(resolve_bind_address("test", "fi_sockaddr_in6://[::1]:0").host, "::1");
  } catch (const ConfigError& e) {
    GTEST_SKIP() << "this host has no ::1: " << e.what();
  }
}

struct BadAddress {
  const char* spec;
  const char* expected;  // a piece of the message
};

class BindAddressRejects : public ::testing::TestWithParam<BadAddress> {};

TEST_P(BindAddressRejects, WithAMessageNamingTheInput) {
  const auto& param = GetParam();
  try {
    (void)resolve_bind_address("FI_OFI_MRAIL_ADDR", param.spec);
    FAIL() << "accepted '" << param.spec << "'";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.input(), "FI_OFI_MRAIL_ADDR");
    EXPECT_EQ(e.value(), param.spec);
    EXPECT_NE(message.find(std::string("FI_OFI_MRAIL_ADDR='") + param.spec + "'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(param.expected), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, BindAddressRejects,
    ::testing::Values(
        BadAddress{"", "expected an interface name"},
        BadAddress{" lo", "leading or trailing spaces"},
        BadAddress{"nosuch0", "is not an interface of this host"},
        BadAddress{"nosuch0", "lo (127.0.0.1"},  // lists what exists
        BadAddress{"198.51.100.7", "198.51.100.7 is not an address of this host"},
        BadAddress{"127.0.0.1:99999", "port '99999' is not an integer from 0 to 65535"},
        BadAddress{"127.0.0.1:", "port '' is not an integer"},
        BadAddress{"fi_addr_psmx2://1234", "FI_ADDR_STR format 'fi_addr_psmx2' is not supported"},
        BadAddress{"fi_sockaddr_in://[::1]:0", "expected fi_sockaddr_in://<IPv4 address>"},
        BadAddress{"fi_sockaddr_in://127.0.0.1:x", "port 'x'"},
        BadAddress{"[::1", "expected an interface name"}));

}  // namespace
}  // namespace railyard::rail
