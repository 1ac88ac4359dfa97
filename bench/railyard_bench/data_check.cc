#include "data_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "railyard/collectives/reduction.h"

namespace railyard::bench {
namespace {

using collectives::DataType;
using collectives::ReduceOp;

// The largest integer every value of `type` holds exactly, with margin: a
// reduction of inputs up to it stays exact.
std::uint64_t exact_bound(DataType type) noexcept {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUint8:
      return 100;
    case DataType::kBfloat16:  // 8 significant bits
      return 250;
    case DataType::kFloat16:  // 11 significant bits
      return 2000;
    case DataType::kInt16:
    case DataType::kUint16:
      return 30000;
    default:
      return 1000003;
  }
}

// Rank `rank`'s input element `index`.
std::uint64_t input_value(const CheckShape& shape, int rank, std::size_t index) noexcept {
  const auto r = static_cast<std::uint64_t>(rank);
  const std::uint64_t bound = exact_bound(shape.type);
  const std::uint64_t mixed = index * 7 + r * 13 + 5;
  if (!reduces(shape.operation)) {
    return mixed % bound;
  }
  switch (shape.op) {
    case ReduceOp::kProd: {
      // At most one 2 per element (ranks <= period): the product is 1 or 2.
      const std::uint64_t period =
          std::max<std::uint64_t>(static_cast<std::uint64_t>(shape.ranks), 7);
      return (index + r) % period == 0 ? 2 : 1;
    }
    case ReduceOp::kSum: {
      // p inputs up to bound / p sum to at most the bound.
      const std::uint64_t most = bound / static_cast<std::uint64_t>(shape.ranks);
      return mixed % (most + 1);
    }
    default:
      return mixed % bound;
  }
}

std::uint64_t combine(ReduceOp op, std::uint64_t left, std::uint64_t right) noexcept {
  switch (op) {
    case ReduceOp::kSum:
      return left + right;
    case ReduceOp::kProd:
      return left * right;
    case ReduceOp::kMin:
      return std::min(left, right);
    case ReduceOp::kMax:
      return std::max(left, right);
    case ReduceOp::kBand:
      return left & right;
    case ReduceOp::kBor:
      return left | right;
    case ReduceOp::kBxor:
      return left ^ right;
  }
  return left;
}

// The reduction over every rank of input element `index`.
std::uint64_t reduced(const CheckShape& shape, std::size_t index) noexcept {
  std::uint64_t value = input_value(shape, 0, index);
  for (int rank = 1; rank < shape.ranks; ++rank) {
    value = combine(shape.op, value, input_value(shape, rank, index));
  }
  return value;
}

template <typename T>
void put(void* data, std::size_t index, T value) noexcept {
  std::memcpy(static_cast<std::byte*>(data) + index * sizeof(T), &value, sizeof(T));
}

template <typename T>
T get(const void* data, std::size_t index) noexcept {
  T value;
  std::memcpy(&value, static_cast<const std::byte*>(data) + index * sizeof(T), sizeof(T));
  return value;
}

void store(DataType type, void* data, std::size_t index, std::uint64_t value) noexcept {
  switch (type) {
    case DataType::kInt8:
      return put(data, index, static_cast<std::int8_t>(value));
    case DataType::kInt16:
      return put(data, index, static_cast<std::int16_t>(value));
    case DataType::kInt32:
      return put(data, index, static_cast<std::int32_t>(value));
    case DataType::kInt64:
      return put(data, index, static_cast<std::int64_t>(value));
    case DataType::kUint8:
      return put(data, index, static_cast<std::uint8_t>(value));
    case DataType::kUint16:
      return put(data, index, static_cast<std::uint16_t>(value));
    case DataType::kUint32:
      return put(data, index, static_cast<std::uint32_t>(value));
    case DataType::kUint64:
      return put(data, index, value);
    case DataType::kFloat16:
      return put(data, index, collectives::float_to_half(static_cast<float>(value)));
    case DataType::kBfloat16:
      return put(data, index, collectives::float_to_bfloat16(static_cast<float>(value)));
    case DataType::kFloat32:
      return put(data, index, static_cast<float>(value));
    case DataType::kFloat64:
      return put(data, index, static_cast<double>(value));
  }
}

// Element `index` as a double (every expected value is exact in one).
double load(DataType type, const void* data, std::size_t index) noexcept {
  switch (type) {
    case DataType::kInt8:
      return get<std::int8_t>(data, index);
    case DataType::kInt16:
      return get<std::int16_t>(data, index);
    case DataType::kInt32:
      return get<std::int32_t>(data, index);
    case DataType::kInt64:
      return static_cast<double>(get<std::int64_t>(data, index));
    case DataType::kUint8:
      return get<std::uint8_t>(data, index);
    case DataType::kUint16:
      return get<std::uint16_t>(data, index);
    case DataType::kUint32:
      return get<std::uint32_t>(data, index);
    case DataType::kUint64:
      return static_cast<double>(get<std::uint64_t>(data, index));
    case DataType::kFloat16:
      return collectives::half_to_float(get<std::uint16_t>(data, index));
    case DataType::kBfloat16:
      return collectives::bfloat16_to_float(get<std::uint16_t>(data, index));
    case DataType::kFloat32:
      return get<float>(data, index);
    case DataType::kFloat64:
      return get<double>(data, index);
  }
  return std::nan("");
}

// What output element `index` of rank `rank` should hold; `block` is the
// per-rank block of the blocked operations.
std::uint64_t expected(const CheckShape& shape, int rank, std::size_t index, std::size_t block) {
  const auto r = static_cast<std::size_t>(rank);
  switch (data_of(shape.operation)) {
    case Operation::kAllreduce:
    case Operation::kReduce:
      return reduced(shape, index);
    case Operation::kReduceScatter:
      return reduced(shape, r * block + index);
    case Operation::kBcast:
      return input_value(shape, shape.root, index);
    case Operation::kAllgather:
    case Operation::kGather:
      return input_value(shape, static_cast<int>(index / block), index % block);
    case Operation::kScatter:
      return input_value(shape, shape.root, r * block + index);
    case Operation::kAlltoall:
      return input_value(shape, static_cast<int>(index / block), r * block + index % block);
    case Operation::kSendrecv:
      return input_value(shape, (rank + shape.ranks - 1) % shape.ranks, index);
    case Operation::kBarrier:
    default:
      return 0;
  }
}

}  // namespace

void fill_input(const CheckShape& shape, int rank, void* data, std::size_t first,
                std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) {
    store(shape.type, data, k, input_value(shape, rank, first + k));
  }
}

void poison(void* data, std::size_t bytes) {
  if (bytes != 0) {
    std::memset(data, 0xff, bytes);
  }
}

std::uint64_t count_wrong(const CheckShape& shape, int rank, const void* data,
                          std::size_t elements) {
  // The operations whose result is the root's alone.
  if ((shape.operation == Operation::kReduce || shape.operation == Operation::kGather) &&
      rank != shape.root) {
    return 0;
  }
  const std::size_t block = elements / static_cast<std::size_t>(shape.ranks);
  const std::size_t outputs = recv_elements(shape.operation, elements, shape.ranks);
  std::uint64_t wrong = 0;
  for (std::size_t index = 0; index < outputs; ++index) {
    if (load(shape.type, data, index) != static_cast<double>(expected(shape, rank, index, block))) {
      ++wrong;
    }
  }
  return wrong;
}

}  // namespace railyard::bench
