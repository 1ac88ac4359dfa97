#include "railyard/common/detail/parse.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "railyard/common/error.h"

namespace railyard {
namespace {

TEST(Split, KeepsEmptyPieces) {
  EXPECT_EQ(split("a,b", ','), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(split("a,,b,", ','), (std::vector<std::string_view>{"a", "", "b", ""}));
  EXPECT_EQ(split("", ','), (std::vector<std::string_view>{""}));
}

TEST(Trim, RemovesSpacesAndTabs) {
  EXPECT_EQ(trim("  x y\t"), "x y");
  EXPECT_EQ(trim(" \t "), "");
}

TEST(ParseSize, AcceptsBinarySuffixes) {
  EXPECT_EQ(try_parse_size("0"), 0U);
  EXPECT_EQ(try_parse_size("4096"), 4096U);
  EXPECT_EQ(try_parse_size("64k"), 65536U);
  EXPECT_EQ(try_parse_size("64K"), 65536U);
  EXPECT_EQ(try_parse_size("64KiB"), 65536U);
  EXPECT_EQ(try_parse_size("1m"), 1048576U);
  EXPECT_EQ(try_parse_size("2GB"), 2ULL << 30);
  EXPECT_EQ(try_parse_size("1t"), 1ULL << 40);
  EXPECT_EQ(try_parse_size("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseDuration, AcceptsUnitsAndTakesABareNumberInTheGivenUnit) {
  using std::chrono::milliseconds;
  const milliseconds min(1);
  const milliseconds max(std::chrono::hours(24));
  EXPECT_EQ(parse_duration("T", "60", std::chrono::seconds(1), min, max), milliseconds(60'000));
  EXPECT_EQ(parse_duration("T", "60", milliseconds(1), min, max), milliseconds(60));
  EXPECT_EQ(parse_duration("T", "250ms", std::chrono::seconds(1), min, max), milliseconds(250));
  EXPECT_EQ(parse_duration("T", "2M", std::chrono::seconds(1), min, max), milliseconds(120'000));
  EXPECT_EQ(parse_duration("T", "1h", std::chrono::seconds(1), min, max), milliseconds(3'600'000));
}

TEST(ParseDuration, RejectsOtherFormsAndOutOfRangeValuesNamingTheInput) {
  using std::chrono::milliseconds;
  for (const char* text : {"", "s", "1.5s", "10 s", "-1", "5d", "25h", "0", "99999999999999999h"}) {
    try {
      (void)parse_duration("RAILYARD_X", text, std::chrono::seconds(1), milliseconds(1),
                           std::chrono::hours(24));
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.input(), "RAILYARD_X");
      EXPECT_NE(error.expected().find("1 ms to 24 h"), std::string::npos) << error.what();
    }
  }
}

TEST(DescribeSize, UsesTheLargestBinaryUnitThatDividesIt) {
  constexpr std::uint64_t kKibibyte = 1024;
  constexpr std::uint64_t kMebibyte = kKibibyte * 1024;
  EXPECT_EQ(describe_size(0), "0 bytes");
  EXPECT_EQ(describe_size(100), "100 bytes");
  EXPECT_EQ(describe_size(64 * kKibibyte), "64 KiB");
  EXPECT_EQ(describe_size(3 * kMebibyte), "3 MiB");
  EXPECT_EQ(describe_size(kMebibyte + kKibibyte), "1025 KiB");
  EXPECT_EQ(describe_size(2048 * kMebibyte), "2 GiB");
}

TEST(SizeArgument, IsReadBackAsTheSameSize) {
  EXPECT_EQ(size_argument(0), "0");
  EXPECT_EQ(size_argument(1000), "1000");
  EXPECT_EQ(size_argument(65536), "64k");
  EXPECT_EQ(size_argument(std::uint64_t{5} << 30), "5g");
  for (const std::uint64_t size : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{4096},
                                   std::uint64_t{3} << 20, (std::uint64_t{1} << 40) + 1024}) {
    EXPECT_EQ(try_parse_size(size_argument(size)), size) << size_argument(size);
  }
}

TEST(ParseSize, RejectsEverythingElse) {
  for (const char* bad : {"", "k", "-1", "0x10", "1.5k", "16kk", "16 k", " 16", "16x",
                          "18446744073709551616", "17179869184g", "1kb2"}) {
    EXPECT_FALSE(try_parse_size(bad).has_value()) << bad;
  }
}

TEST(ParseSize, ErrorNamesInputValueAndForm) {
  try {
    (void)parse_size("RAILYARD_MIN_CHUNK", "64q");
    FAIL() << "no exception";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.input(), "RAILYARD_MIN_CHUNK");
    EXPECT_EQ(e.value(), "64q");
    EXPECT_NE(std::string(e.what()).find("RAILYARD_MIN_CHUNK='64q'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("byte count"), std::string::npos);
  }
}

TEST(ParseUint, ChecksRange) {
  EXPECT_EQ(parse_uint("X", "7", 0, 10), 7U);
  EXPECT_THROW((void)parse_uint("X", "11", 0, 10), ConfigError);
  EXPECT_THROW((void)parse_uint("X", "", 0, 10), ConfigError);
  EXPECT_THROW((void)parse_uint("X", "+1", 0, 10), ConfigError);
  try {
    (void)parse_uint("RAILYARD_SPIN_US", "abc", 0, 1000);
    FAIL() << "no exception";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "RAILYARD_SPIN_US='abc' is invalid: expected an integer from 0 to 1000");
  }
}

TEST(Iequals, IgnoresAsciiCase) {
  EXPECT_TRUE(iequals("Round-Robin", "round-robin"));
  EXPECT_FALSE(iequals("fixed", "fixed "));
}

TEST(JoinList, UsesConjunctionBeforeTheLast) {
  EXPECT_EQ(join_list({}, "or"), "");
  EXPECT_EQ(join_list({"a"}, "or"), "a");
  EXPECT_EQ(join_list({"a", "b"}, "and"), "a and b");
  EXPECT_EQ(join_list({"a", "b", "c"}, "or"), "a, b or c");
}

}  // namespace
}  // namespace railyard
