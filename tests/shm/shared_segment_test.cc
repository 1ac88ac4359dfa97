// A named shared segment: what one process writes another that opens it
// reads, names are checked and removed, and every failure names the segment.
#include "railyard/shm/shared_segment.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "railyard/common/error.h"

namespace railyard::shm {
namespace {

constexpr std::size_t kBytes = std::size_t{1} << 20;

// A name no other test process uses.
std::string unique_name(const char* what) {
  return fmt::format("/railyard-test-{}-{}", ::getpid(), what);
}

bool name_exists(const std::string& name) { return std::filesystem::exists("/dev/shm" + name); }

// The message of the Error `make` throws, or a failure.
template <typename Make>
std::string error_of(Make make) {
  try {
    make();
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(SharedSegment, WhatOneProcessWritesAnotherThatOpensItReads) {
  const std::string name = unique_name("share");
  SharedSegment created = SharedSegment::create(name, kBytes);
  ASSERT_EQ(created.size(), kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) {
    created.data()[i] = static_cast<std::byte>(i * 7);
  }
  const pid_t child = ::fork();
  if (child == 0) {
    // Checks every byte, then answers in the last one.
    int code = 0;
    try {
      SharedSegment opened = SharedSegment::open(name, kBytes);
      for (std::size_t i = 0; i + 1 < kBytes; ++i) {
        if (opened.data()[i] != static_cast<std::byte>(i * 7)) {
          code = 2;
          break;
        }
      }
      opened.data()[kBytes - 1] = std::byte{0x5a};
    } catch (...) {
      code = 3;
    }
    std::_Exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: a byte differed; 3: open threw";
  EXPECT_EQ(created.data()[kBytes - 1], std::byte{0x5a});
}

TEST(SharedSegment, TheCreatorRemovesTheNameAndTheMappingOutlivesIt) {
  const std::string name = unique_name("unlink");
  {
    SharedSegment created = SharedSegment::create(name, kBytes);
    SharedSegment opened = SharedSegment::open(name, kBytes);
    EXPECT_TRUE(name_exists(name));
    created.unlink();
    EXPECT_FALSE(name_exists(name));
    created.data()[10] = std::byte{1};
    EXPECT_EQ(opened.data()[10], std::byte{1}) << "both still map the same memory";
  }
  const std::string other = unique_name("destroyed");
  { const SharedSegment created = SharedSegment::create(other, kBytes); }
  EXPECT_FALSE(name_exists(other)) << "destroying the creator removes the name";
  // An opener leaves the name alone.
  SharedSegment created = SharedSegment::create(other, kBytes);
  { const SharedSegment opened = SharedSegment::open(other, kBytes); }
  EXPECT_TRUE(name_exists(other));
}

TEST(SharedSegment, FailuresNameTheSegmentAndWhatWasWrong) {
  const std::string name = unique_name("errors");
  const SharedSegment created = SharedSegment::create(name, kBytes);
  const std::string twice = error_of([&] { (void)SharedSegment::create(name, kBytes); });
  EXPECT_NE(twice.find(name), std::string::npos) << twice;
  EXPECT_NE(twice.find("shm_open"), std::string::npos) << twice;
  EXPECT_NE(twice.find("exists"), std::string::npos) << twice;

  const std::string size = error_of([&] { (void)SharedSegment::open(name, kBytes / 2); });
  EXPECT_NE(size.find(fmt::format("holds {} bytes; expected {}", kBytes, kBytes / 2)),
            std::string::npos)
      << size;

  const std::string missing = unique_name("missing");
  const std::string absent = error_of([&] { (void)SharedSegment::open(missing, kBytes); });
  EXPECT_NE(absent.find(missing), std::string::npos) << absent;
  EXPECT_NE(absent.find("No such file"), std::string::npos) << absent;

  const std::string too_long = "/" + std::string(256, 'x');
  for (const std::string& bad :
       {std::string(), std::string("/"), std::string("no-slash"), std::string("/a/b"), too_long}) {
    const std::string refused = error_of([&] { (void)SharedSegment::create(bad, kBytes); });
    EXPECT_NE(refused.find("is not valid"), std::string::npos) << '"' << bad << "\": " << refused;
  }
  const std::string empty = error_of([&] { (void)SharedSegment::create(unique_name("0"), 0); });
  EXPECT_NE(empty.find("0 bytes"), std::string::npos) << empty;
  EXPECT_FALSE(name_exists(unique_name("0")));
}

}  // namespace
}  // namespace railyard::shm
