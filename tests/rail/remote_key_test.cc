#include "railyard/rail/detail/remote_key.h"

#include <gtest/gtest.h>

#include "railyard/common/error.h"

namespace railyard::rail {
namespace {

RemoteKey plain_key() {
  RemoteKey key;
  key.base_address = 0x7f0012345678ULL;
  key.length = 1 << 20;
  key.key = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
             std::byte{5}, std::byte{6}, std::byte{7}, std::byte{8}};
  return key;
}

std::string decode_error(const std::vector<std::byte>& blob) {
  try {
    (void)decode_remote_key(blob);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RemoteKey, RoundTripsPlainAndRawKeys) {
  const RemoteKey plain = plain_key();
  const auto blob = encode_remote_key(plain);
  ASSERT_EQ(blob.size(), kRemoteKeyHeaderSize + 8);
  const RemoteKey back = decode_remote_key(blob);
  EXPECT_EQ(back.base_address, plain.base_address);
  EXPECT_EQ(back.length, plain.length);
  EXPECT_FALSE(back.raw);
  EXPECT_EQ(back.key, plain.key);

  RemoteKey raw = plain;
  raw.raw = true;
  raw.key.assign(40, std::byte{0xAB});
  const RemoteKey raw_back = decode_remote_key(encode_remote_key(raw));
  EXPECT_TRUE(raw_back.raw);
  EXPECT_EQ(raw_back.key, raw.key);
}

TEST(RemoteKey, IsLittleEndianOnTheWire) {
  const auto blob = encode_remote_key(plain_key());
  EXPECT_EQ(blob[0], std::byte{1});      // version
  EXPECT_EQ(blob[2], std::byte{8});      // key length, low byte
  EXPECT_EQ(blob[8], std::byte{0x78});   // base address, low byte
  EXPECT_EQ(blob[18], std::byte{0x10});  // length 1 MiB = 0x100000
}

TEST(RemoteKey, RejectsMalformedBlobs) {
  const auto good = encode_remote_key(plain_key());
  EXPECT_NE(decode_error({good.begin(), good.begin() + 10}).find("shorter than its 24-byte header"),
            std::string::npos);

  auto version = good;
  version[0] = std::byte{9};
  EXPECT_NE(decode_error(version).find("version 9, expected 1"), std::string::npos);

  auto flags = good;
  flags[1] = std::byte{0x4};
  EXPECT_NE(decode_error(flags).find("unknown flags"), std::string::npos);

  auto truncated = good;
  truncated.pop_back();
  EXPECT_NE(decode_error(truncated).find("declares a 8-byte key but carries 7 bytes"),
            std::string::npos);

  auto long_plain = good;
  long_plain[2] = std::byte{9};
  long_plain.push_back(std::byte{0});
  EXPECT_NE(decode_error(long_plain).find("not raw but is 9 bytes long"), std::string::npos);
}

}  // namespace
}  // namespace railyard::rail
