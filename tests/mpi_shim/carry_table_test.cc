// The shim's table of where it carries each collective, and the overrides
// of RAILYARD_MPI_MIN_BYTES.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/mpi_shim/detail/carry_table.h"

namespace railyard::mpi_shim {
namespace {

constexpr std::uint64_t kKibibyte = 1024;
constexpr std::uint64_t kMebibyte = kKibibyte * 1024;
constexpr const char* kVariable = "RAILYARD_MPI_MIN_BYTES";

TEST(CarryTable, TellsLayoutsApartByHostsAndRanksPerHost) {
  EXPECT_EQ(layout_of(1, 4), Layout::kOneHost);
  EXPECT_EQ(layout_of(1, 0), Layout::kOneHost);
  EXPECT_EQ(layout_of(4, 1), Layout::kOneRankPerHost);
  EXPECT_EQ(layout_of(2, 2), Layout::kSeveralRanksPerHost);
  // Hosts with different numbers of ranks: some hold several.
  EXPECT_EQ(layout_of(3, 0), Layout::kSeveralRanksPerHost);
}

// Whether a row of the built-in table other than `self` holds `bytes`.
bool another_row_holds(const CarryRow& self, std::uint64_t bytes) {
  for (const CarryRow& row : builtin_carry_rows()) {
    if (&row != &self && row.collective == self.collective && row.layout == self.layout &&
        bytes >= row.from && (row.to == kNoEnd || bytes < row.to)) {
      return true;
    }
  }
  return false;
}

TEST(CarryTable, CarriesJustTheBuiltInRows) {
  const CarryTable table;
  ASSERT_FALSE(builtin_carry_rows().empty());
  for (const CarryRow& row : builtin_carry_rows()) {
    SCOPED_TRACE(fmt::format("{} on {}", to_string(row.collective), to_string(row.layout)));
    ASSERT_LT(row.from, row.to);
    EXPECT_TRUE(table.carries(row.collective, row.from, row.layout));
    EXPECT_TRUE(table.carries_some(row.collective, row.layout));
    EXPECT_LE(table.smallest(row.collective), row.from);
    EXPECT_NE(table.describe(row.collective, row.layout).find(describe_size(row.from)),
              std::string::npos);
    if (row.from > 0) {
      EXPECT_EQ(table.carries(row.collective, row.from - 1, row.layout),
                another_row_holds(row, row.from - 1));
    }
    if (row.to != kNoEnd) {
      EXPECT_EQ(table.carries(row.collective, row.to, row.layout), another_row_holds(row, row.to));
    }
  }
}

TEST(CarryTable, CollectivesWithoutRowsGoToMpiAtEverySize) {
  const CarryTable table;
  // A barrier moves no bytes; railyard's is not measured faster.
  EXPECT_EQ(table.smallest(MpiCollective::kBarrier), kNoEnd);
  for (const Layout layout : kAllLayouts) {
    EXPECT_FALSE(table.carries(MpiCollective::kBarrier, 0, layout));
    EXPECT_FALSE(table.carries_some(MpiCollective::kBarrier, layout));
    EXPECT_EQ(table.describe(MpiCollective::kBarrier, layout), "at no size");
  }
}

TEST(CarryTable, OneSizeOverridesEveryCollectiveOnEveryLayout) {
  const CarryTable table = CarryTable::parse(kVariable, "0");
  for (const MpiCollective collective : kAllMpiCollectives) {
    EXPECT_TRUE(table.overridden(collective));
    EXPECT_EQ(table.smallest(collective), 0U);
    for (const Layout layout : kAllLayouts) {
      EXPECT_TRUE(table.carries(collective, 0, layout));
      EXPECT_EQ(table.describe(collective, layout), "from 0 bytes (RAILYARD_MPI_MIN_BYTES)");
    }
  }
  const CarryTable from_64k = CarryTable::parse(kVariable, " 64k ");
  EXPECT_FALSE(from_64k.carries(MpiCollective::kBcast, 64 * kKibibyte - 1, Layout::kOneHost));
  EXPECT_TRUE(from_64k.carries(MpiCollective::kBcast, 64 * kKibibyte, Layout::kOneHost));
  EXPECT_TRUE(
      from_64k.carries(MpiCollective::kAlltoall, 1024 * kMebibyte, Layout::kOneRankPerHost));
}

TEST(CarryTable, NamedSizesOverrideTheirCollectivesAlone) {
  const CarryTable table = CarryTable::parse(kVariable, "bcast=1m, Alltoall = 4k");
  EXPECT_TRUE(table.overridden(MpiCollective::kBcast));
  EXPECT_TRUE(table.overridden(MpiCollective::kAlltoall));
  EXPECT_FALSE(table.overridden(MpiCollective::kAllreduce));
  EXPECT_FALSE(table.carries(MpiCollective::kBcast, kMebibyte - 1, Layout::kOneHost));
  EXPECT_TRUE(table.carries(MpiCollective::kBcast, kMebibyte, Layout::kOneHost));
  EXPECT_TRUE(table.carries(MpiCollective::kAlltoall, 4 * kKibibyte, Layout::kSeveralRanksPerHost));
  EXPECT_EQ(table.describe(MpiCollective::kBcast, Layout::kOneRankPerHost),
            "from 1 MiB (RAILYARD_MPI_MIN_BYTES)");
  // The others keep the built-in table.
  const CarryTable builtin;
  for (const Layout layout : kAllLayouts) {
    EXPECT_EQ(table.describe(MpiCollective::kAllreduce, layout),
              builtin.describe(MpiCollective::kAllreduce, layout));
  }
}

TEST(CarryTable, ABareSizeCoversTheCollectivesNotNamed) {
  const CarryTable table = CarryTable::parse(kVariable, "alltoall=1m,0");
  EXPECT_EQ(table.smallest(MpiCollective::kAlltoall), kMebibyte);
  EXPECT_EQ(table.smallest(MpiCollective::kBarrier), 0U);
  EXPECT_EQ(table.smallest(MpiCollective::kReduceScatter), 0U);
}

TEST(CarryTable, RefusesWhatItCannotRead) {
  for (const char* text : {"", "-1", "64q", "scan=1m", "bcast=", "bcast=x", "64k,1m",
                           "bcast=1m,bcast=2m", "bcast=1m,,allreduce=2m"}) {
    try {
      (void)CarryTable::parse(kVariable, text);
      ADD_FAILURE() << "'" << text << "' was taken";
    } catch (const ConfigError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(kVariable), std::string::npos) << what;
      EXPECT_NE(what.find("expected a byte count"), std::string::npos) << what;
    }
  }
}

// docs/mpi.md's table, "| `bcast` | one host | one rank a host | several |",
// says what the built-in table does, row by row.
TEST(CarryTable, DocsMpiMdShowsTheBuiltInTable) {
  std::ifstream docs(std::string(RAILYARD_SOURCE_DIR) + "/docs/mpi.md");
  ASSERT_TRUE(docs) << "docs/mpi.md";
  const CarryTable table;
  std::string line;
  bool in_section = false;
  int rows = 0;
  while (std::getline(docs, line)) {
    if (line.starts_with("## ")) {
      in_section = line == "## Where the shim carries each collective";
      continue;
    }
    if (!in_section || !line.starts_with("| `")) {
      continue;
    }
    // "| a | b |" -> "a", "b"
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    std::string cell;
    while (std::getline(row, cell, '|')) {
      const auto first = cell.find_first_not_of(' ');
      const auto last = cell.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    ASSERT_EQ(cells.size(), 1 + kAllLayouts.size()) << line;
    const std::string name = cells[0].substr(1, cells[0].size() - 2);  // `name`
    bool known = false;
    for (const MpiCollective collective : kAllMpiCollectives) {
      if (to_string(collective) != name) {
        continue;
      }
      known = true;
      ++rows;
      for (std::size_t i = 0; i < kAllLayouts.size(); ++i) {
        EXPECT_EQ(cells[i + 1], table.describe(collective, kAllLayouts[i]))
            << name << " on " << to_string(kAllLayouts[i]);
      }
    }
    EXPECT_TRUE(known) << line;
  }
  EXPECT_EQ(rows, static_cast<int>(kAllMpiCollectives.size()));
}

}  // namespace
}  // namespace railyard::mpi_shim
