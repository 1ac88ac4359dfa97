// The order of the subjects in each round: every round a permutation, and
// over the whole design every position and every predecessor equally often.
#include "round_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

namespace railyard::bench {
namespace {

std::size_t design_rows(std::size_t subjects) {
  return subjects % 2 == 1 && subjects > 1 ? 2 * subjects : subjects;
}

TEST(RoundOrder, EveryRoundMeasuresEverySubjectOnce) {
  for (std::size_t subjects = 1; subjects <= 12; ++subjects) {
    for (std::size_t rounds : {1U, 3U, 5U, 15U, 40U}) {
      for (std::size_t round = 0; round < rounds; ++round) {
        std::vector<std::size_t> order = round_order(round, rounds, subjects);
        ASSERT_EQ(order.size(), subjects) << subjects << " subjects, round " << round;
        std::sort(order.begin(), order.end());
        std::vector<std::size_t> all(subjects);
        std::iota(all.begin(), all.end(), 0);
        EXPECT_EQ(order, all) << subjects << " subjects, round " << round << " of " << rounds;
      }
    }
  }
}

TEST(RoundOrder, OverTheDesignEachSubjectFollowsEachOtherEquallyOften) {
  for (std::size_t subjects = 2; subjects <= 12; ++subjects) {
    const std::size_t rows = design_rows(subjects);
    std::map<std::pair<std::size_t, std::size_t>, int> follows;
    std::map<std::pair<std::size_t, std::size_t>, int> at_position;
    for (std::size_t round = 0; round < rows; ++round) {
      const std::vector<std::size_t> order = round_order(round, rows, subjects);
      for (std::size_t k = 0; k < subjects; ++k) {
        ++at_position[{order[k], k}];
        if (k > 0) {
          ++follows[{order[k - 1], order[k]}];
        }
      }
    }
    const int times = static_cast<int>(rows / subjects);
    EXPECT_EQ(follows.size(), subjects * (subjects - 1)) << subjects << " subjects";
    for (const auto& [pair, count] : follows) {
      EXPECT_EQ(count, times) << subjects << " subjects: " << pair.second << " after "
                              << pair.first;
    }
    EXPECT_EQ(at_position.size(), subjects * subjects) << subjects << " subjects";
    for (const auto& [where, count] : at_position) {
      EXPECT_EQ(count, times) << subjects << " subjects: subject " << where.first << " at position "
                              << where.second;
    }
  }
}

TEST(RoundOrder, APlainRotationWouldKeepEachPredecessorTheDesignDoesNot) {
  // 10 subjects over 5 rounds (the rows spread over the design): subject
  // 1's predecessor changes from round to round.
  std::vector<std::size_t> before_one;
  for (std::size_t round = 0; round < 5; ++round) {
    const std::vector<std::size_t> order = round_order(round, 5, 10);
    const auto at = std::find(order.begin(), order.end(), 1U);
    if (at != order.begin()) {
      before_one.push_back(*(at - 1));
    }
  }
  std::sort(before_one.begin(), before_one.end());
  EXPECT_GE(std::unique(before_one.begin(), before_one.end()) - before_one.begin(), 3);
}

}  // namespace
}  // namespace railyard::bench
