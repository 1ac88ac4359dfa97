// Faulting in the start of a shared-memory region: the pages asked for are
// in this process's page tables afterwards, the others are not, and no
// byte of the file changes.
#include "railyard/shm/region_prefault.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#include "mapped_pages.h"

namespace railyard::shm {
namespace {

using railyard::testing::mapping_of_file;
using railyard::testing::present_pages;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kFileBytes = 64 * kPage;

// A file in /dev/shm of kFileBytes, mapped shared and writable as the shm
// provider maps its regions; unmapped and removed when destroyed.
class SharedFile {
 public:
  SharedFile() : path_("/dev/shm/railyard-prefault-test-" + std::to_string(::getpid())) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || ::ftruncate(fd, kFileBytes) != 0) {
      throw std::runtime_error("cannot make " + path_);
    }
    base_ = ::mmap(nullptr, kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base_ == MAP_FAILED) {
      throw std::runtime_error("cannot map " + path_);
    }
  }
  ~SharedFile() {
    ::munmap(base_, kFileBytes);
    ::unlink(path_.c_str());
  }
  SharedFile(const SharedFile&) = delete;
  SharedFile& operator=(const SharedFile&) = delete;
  SharedFile(SharedFile&&) = delete;
  SharedFile& operator=(SharedFile&&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] auto* bytes() const { return static_cast<unsigned char*>(base_); }

 private:
  std::string path_;
  void* base_ = nullptr;
};

TEST(RegionPrefault, FaultsInTheStartAskedForAndNothingElse) {
  const SharedFile file;
  const auto mapping = mapping_of_file(file.path());
  ASSERT_TRUE(mapping.has_value()) << file.path() << " is not in /proc/self/maps";
  ASSERT_EQ(present_pages(mapping->start, kFileBytes), 0U) << "fresh mapping already present";
  EXPECT_EQ(prefault_region(file.path(), 16 * kPage), 16 * kPage);
  EXPECT_EQ(present_pages(mapping->start, 16 * kPage), 16U);
  EXPECT_EQ(present_pages(mapping->start + 16 * kPage, kFileBytes - 16 * kPage), 0U);
}

TEST(RegionPrefault, StopsAtTheEndOfTheMappingAndWritesNothing) {
  const SharedFile file;
  file.bytes()[3 * kPage] = 0x5a;  // the file's content must survive
  EXPECT_EQ(prefault_region(file.path(), 1024 * kPage), kFileBytes);
  const auto mapping = mapping_of_file(file.path());
  ASSERT_TRUE(mapping.has_value());
  EXPECT_EQ(present_pages(mapping->start, kFileBytes), kFileBytes / kPage);
  for (std::size_t i = 0; i < kFileBytes; ++i) {
    ASSERT_EQ(file.bytes()[i], i == 3 * kPage ? 0x5a : 0) << "byte " << i;
  }
}

TEST(RegionPrefault, AFileNotMappedOrNoBytesFaultsInNothing) {
  EXPECT_EQ(prefault_region("/dev/shm/railyard-no-such-region", kPage), 0U);
  EXPECT_EQ(prefault_region("", kPage), 0U);
  const SharedFile file;
  EXPECT_EQ(prefault_region(file.path(), 0), 0U);
  const auto mapping = mapping_of_file(file.path());
  ASSERT_TRUE(mapping.has_value());
  EXPECT_EQ(present_pages(mapping->start, kFileBytes), 0U);
}

}  // namespace
}  // namespace railyard::shm
