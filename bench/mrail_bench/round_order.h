// The order in which one round of an interleaved run measures its subjects.
#pragma once

#include <cstddef>
#include <vector>

namespace railyard::bench {

// Round `round` (of `rounds`) of `subjects` subjects: a permutation of
// 0..subjects-1, taken from a Williams design (a Latin square balanced for
// the subject run just before). Over the design's rows (`subjects` of them
// when that is even, twice as many when odd) every subject is measured at
// every position of a round equally often, and every subject directly
// follows every other one equally often. A plain rotation balances the
// positions but gives each subject the same predecessor in every round,
// so whatever one subject leaves behind (sockets closing, a process still
// exiting, a cold cache) falls on the same other subject for a whole run.
// With fewer rounds than rows, the rows taken are spread evenly over the
// design; with more, the design repeats.
[[nodiscard]] std::vector<std::size_t> round_order(std::size_t round, std::size_t rounds,
                                                   std::size_t subjects);

}  // namespace railyard::bench
