// Faulting in a range of memory in one call: every page holding a byte of
// the range is in the page tables afterwards, no other is, and no byte
// changes.
#include "railyard/common/detail/populate_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

#include "mapped_pages.h"

namespace railyard {
namespace {

using railyard::testing::present_pages;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kPages = 32;

// kPages fresh anonymous pages, none faulted in yet.
class FreshPages {
 public:
  FreshPages()
      : base_(::mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0)) {}
  ~FreshPages() { ::munmap(base_, kPages * kPage); }
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;
  FreshPages(FreshPages&&) = delete;
  FreshPages& operator=(FreshPages&&) = delete;

  [[nodiscard]] bool ok() const { return base_ != MAP_FAILED; }
  [[nodiscard]] auto* bytes() const { return static_cast<unsigned char*>(base_); }
  [[nodiscard]] std::uintptr_t start() const { return reinterpret_cast<std::uintptr_t>(base_); }

 private:
  void* base_;
};

TEST(PopulatePages, FaultsInEveryPageTheRangeTouchesAndNoOther) {
  const FreshPages pages;
  ASSERT_TRUE(pages.ok());
  ASSERT_EQ(present_pages(pages.start(), kPages * kPage), 0U);
  // From the middle of page 4 to the first byte of page 10: pages 4 to 10.
  ASSERT_TRUE(populate_pages(pages.bytes() + 4 * kPage + 100, 6 * kPage - 99));
  EXPECT_EQ(present_pages(pages.start(), 4 * kPage), 0U);
  EXPECT_EQ(present_pages(pages.start() + 4 * kPage, 7 * kPage), 7U);
  EXPECT_EQ(present_pages(pages.start() + 11 * kPage, (kPages - 11) * kPage), 0U);
}

TEST(PopulatePages, KeepsWhatThePagesHold) {
  const FreshPages pages;
  ASSERT_TRUE(pages.ok());
  pages.bytes()[5] = 0x42;
  pages.bytes()[kPage * 3 + 7] = 0x17;
  ASSERT_TRUE(populate_pages(pages.bytes(), kPages * kPage));
  EXPECT_EQ(present_pages(pages.start(), kPages * kPage), kPages);
  for (std::size_t i = 0; i < kPages * kPage; ++i) {
    const unsigned char expected = i == 5 ? 0x42 : i == kPage * 3 + 7 ? 0x17 : 0;
    ASSERT_EQ(pages.bytes()[i], expected) << "byte " << i;
  }
}

TEST(PopulatePages, NothingToDoIsRefused) {
  const FreshPages pages;
  ASSERT_TRUE(pages.ok());
  EXPECT_FALSE(populate_pages(pages.bytes(), 0));
  EXPECT_FALSE(populate_pages(nullptr, kPage));
  EXPECT_EQ(present_pages(pages.start(), kPages * kPage), 0U);
}

}  // namespace
}  // namespace railyard
