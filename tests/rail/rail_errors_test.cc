// Every bad input to a rail fails at once with a message naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rail_pair.h"
#include "railyard/common/error.h"
#include "railyard/fabric/info.h"
#include "railyard/rail/provider_selection.h"
#include "railyard/rail/rail.h"
#include "scoped_env.h"

namespace railyard::rail {
namespace {

using testing::ScopedEnv;

// The message of the exception `make` throws, or "no exception".
template <typename Exception, typename Make>
std::string message_of(Make make) {
  try {
    make();
  } catch (const Exception& e) {
    return e.what();
  }
  return "no exception";
}

RailOptions options(const std::string& provider, const std::string& address) {
  RailOptions out;
  out.provider = provider;
  out.address = address;
  return out;
}

TEST(RailErrors, UnknownProviderIsNamedWithTheAlternatives) {
  const auto message = message_of<Error>([] { Rail rail(options("nosuchprov", "127.0.0.1")); });
  EXPECT_NE(message.find("no libfabric provider is named 'nosuchprov'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("tcp;ofi_rxm"), std::string::npos) << message;
}

TEST(RailErrors, ACoreProviderWithoutRdmEndpointsGetsASuggestion) {
  const auto message = message_of<Error>([] { Rail rail(options("tcp", "127.0.0.1")); });
  EXPECT_NE(message.find("provider 'tcp' offers no FI_EP_RDM endpoints"), std::string::npos)
      << message;
  EXPECT_NE(message.find("try 'tcp;ofi_rxm'"), std::string::npos) << message;

  const auto udp = message_of<Error>([] { Rail rail(options("udp", "127.0.0.1")); });
  EXPECT_NE(udp.find("provider 'udp' offers no FI_EP_RDM endpoints"), std::string::npos) << udp;
}

TEST(RailErrors, AnAddressOfAnotherHostIsRefused) {
  const auto message =
      message_of<ConfigError>([] { Rail rail(options("tcp;ofi_rxm", "198.51.100.7")); });
  EXPECT_NE(message.find("rail address='198.51.100.7' is invalid"), std::string::npos) << message;
  EXPECT_NE(message.find("not an address of this host"), std::string::npos) << message;
}

TEST(RailErrors, AMissingInterfaceIsNamedAndTheRealOnesListed) {
  const auto message =
      message_of<ConfigError>([] { Rail rail(options("tcp;ofi_rxm", "nosuch0")); });
  EXPECT_NE(message.find("rail address='nosuch0' is invalid"), std::string::npos) << message;
  EXPECT_NE(message.find("'nosuch0' is not an interface of this host"), std::string::npos)
      << message;
  EXPECT_NE(message.find("lo (127.0.0.1"), std::string::npos) << message;
}

// String addresses (shm's "fi_shm://4242:0:1") have no fixed length, but
// the provider reads up to the NUL: a blob without one is refused, as are
// an empty one and one with a NUL inside.
TEST(RailErrors, StringAddressesMustBeOneTerminatedString) {
  RailOptions options;
  options.provider = "shm";
  Rail rail(options);
  ASSERT_EQ(rail.limits().address_format, "FI_ADDR_STR");
  const auto blob = [](const std::string& text, bool terminated) {
    std::vector<std::byte> out;
    for (const char c : text) {
      out.push_back(static_cast<std::byte>(c));
    }
    if (terminated) {
      out.push_back(std::byte{0});
    }
    return out;
  };
  for (const auto& bad : {blob("fi_shm://4242:0:1", false), blob("", true),
                          blob(std::string("fi_shm://42") + '\0' + ":0:1", true),
                          blob(std::string(300, 'x'), true)}) {
    try {
      (void)rail.insert_peer(bad);
      ADD_FAILURE() << "a " << bad.size() << "-byte string address was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("NUL-terminated FI_ADDR_STR"), std::string::npos)
          << error.what();
    }
  }
  // Its own address, a terminated string, goes in.
  (void)rail.insert_peer(rail.address());
}

TEST(RailErrors, EnvironmentVariablesAreValidated) {
  {
    ScopedEnv env("RAILYARD_PROVIDER", "tcp;ofi_rxm ");
    const auto message = message_of<ConfigError>([] { Rail rail; });
    EXPECT_NE(message.find("RAILYARD_PROVIDER='tcp;ofi_rxm ' is invalid"), std::string::npos)
        << message;
  }
  {
    ScopedEnv env("RAILYARD_PROVIDER", "nosuchprov");
    const auto message = message_of<Error>([] { Rail rail(RailOptions{}); });
    EXPECT_NE(message.find("'nosuchprov'"), std::string::npos) << message;
  }
  {
    ScopedEnv env("RAILYARD_SPIN_US", "fast");
    const auto message = message_of<ConfigError>([] { Rail rail; });
    EXPECT_NE(
        message.find("RAILYARD_SPIN_US='fast' is invalid: expected an integer from 0 to 1000000"),
        std::string::npos)
        << message;
  }
  {
    ScopedEnv env("RAILYARD_LOG", "chatty");
    const auto message = message_of<ConfigError>([] { Rail rail(options("", "127.0.0.1")); });
    EXPECT_NE(message.find("RAILYARD_LOG='chatty' is invalid"), std::string::npos) << message;
  }
}

TEST(RailErrors, TheDefaultProviderComesFromTheEnvironment) {
  ScopedEnv env("RAILYARD_PROVIDER", nullptr);
  Rail rail(options("", "127.0.0.1"));
  EXPECT_EQ(rail.limits().provider, "net");
  EXPECT_TRUE(rail.limits().rma());
  EXPECT_GT(rail.limits().max_message_size, 64U << 20);
}

TEST(RailErrors, APeerAddressOfTheWrongSizeIsRefused) {
  Rail rail(options("tcp;ofi_rxm", "127.0.0.1"));
  const std::vector<std::byte> garbage(3);
  const auto message = message_of<Error>([&] { (void)rail.insert_peer(garbage); });
  EXPECT_NE(message.find("peer address is 3 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("16-byte FI_SOCKADDR_IN addresses"), std::string::npos) << message;
}

TEST(RailErrors, AMalformedRemoteKeyIsRefused) {
  Rail rail(options("tcp;ofi_rxm", "127.0.0.1"));
  std::vector<std::byte> buffer(64);
  auto region = rail.register_memory(buffer.data(), buffer.size());
  auto key = region.remote_key();
  key[0] = std::byte{7};
  const auto message = message_of<Error>([&] { (void)rail.import_region(key); });
  EXPECT_NE(message.find("remote memory key has version 7"), std::string::npos) << message;
  const auto empty = message_of<Error>([&] { (void)rail.register_memory(buffer.data(), 0); });
  EXPECT_NE(empty.find("cannot register an empty region"), std::string::npos) << empty;
}

TEST(RailErrors, ASliceOutsideItsRegionIsRefused) {
  Rail rail(options("tcp;ofi_rxm", "127.0.0.1"));
  std::vector<std::byte> buffer(64);
  auto region = rail.register_memory(buffer.data(), buffer.size());
  EXPECT_NO_THROW((void)region.slice(60, 4));
  const auto message = message_of<Error>([&] { (void)region.slice(60, 5); });
  EXPECT_NE(message.find("slice [60, +5) falls outside the 64-byte registered region"),
            std::string::npos)
      << message;
}

// libfabric 1.17's ofi_mrail aborts the process (a double free) in any
// fi_getinfo it takes part in (most: it layers over net) when
// FI_OFI_MRAIL_ADDR lists an entry after the first that it cannot convert.
// Every fi_getinfo railyard makes refuses such a value first.
TEST(RailErrors, NoRailyardFiGetinfoMeetsOfiMrailWithAnAddressItWouldAbortOn) {
  for (const char* value : {"lo,no_such_if0", "127.0.0.1,no_such_if0", "lo,", "lo,,lo",
                            "lo,127.0.0.1:5000", "127.0.0.1,fi_sockaddr_in://bogus"}) {
    const ScopedEnv addresses("FI_OFI_MRAIL_ADDR", value);
    for (const char* provider : {"", "net", "ofi_mrail"}) {
      auto hints = fabric::FabricInfo::allocate();
      if (*provider != '\0') {
        hints.set_provider(provider);
      }
      fabric::FabricInfo found;
      const std::string message = message_of<ConfigError>(
          [&] { (void)fabric::get_info(nullptr, nullptr, 0, hints, found); });
      EXPECT_NE(message.find(std::string("FI_OFI_MRAIL_ADDR='") + value + "' is invalid"),
                std::string::npos)
          << provider << ": " << message;
      EXPECT_NE(message.find("libfabric's ofi_mrail provider takes every entry"), std::string::npos)
          << provider << ": " << message;
    }
  }
  // A list ofi_mrail converts whole is passed on.
  const ScopedEnv good("FI_OFI_MRAIL_ADDR", "lo,127.0.0.1");
  EXPECT_FALSE(list_rdm_providers().empty());
}

}  // namespace
}  // namespace railyard::rail
