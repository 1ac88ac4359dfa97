// The data of railyard-bench's check (-c 1): what each rank puts in, and
// how many elements of what it gets back are wrong. Inputs are small
// non-negative integers, exact in every type even after the reduction, so
// the result does not depend on the order an algorithm reduces in and a
// block that lands in the wrong place, or not at all, is counted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "operation.h"
#include "railyard/collectives/datatype.h"

namespace railyard::bench {

struct CheckShape {
  Operation operation;
  collectives::DataType type;
  collectives::ReduceOp op;
  int ranks;
  int root;
};

// Writes rank `rank`'s input elements first .. first + count - 1 at `data`
// (element `first` at data[0]).
void fill_input(const CheckShape& shape, int rank, void* data, std::size_t first,
                std::size_t count);

// Fills `bytes` at `data` with a pattern no input or result takes (all ones:
// -1, above every input, or a NaN), so an element nothing wrote is wrong.
void poison(void* data, std::size_t bytes);

// How many of the `count` output elements at `data` (the call's receive
// buffer; `elements` as elements_for counts them) differ from what rank
// `rank` should hold. 0 on a rank the operation leaves nothing on.
[[nodiscard]] std::uint64_t count_wrong(const CheckShape& shape, int rank, const void* data,
                                        std::size_t elements);

}  // namespace railyard::bench
