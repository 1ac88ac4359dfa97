// railyard-bench's logic without a job: what each operation moves and its
// bus factor, the sizes of a sweep, the flags' checks, the check's verdict
// on right and wrong outputs, and the table, CSV and JSON it prints.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_options.h"
#include "data_check.h"
#include "nccl_table.h"
#include "operation.h"
#include "railyard/collectives/reduction.h"
#include "railyard/common/error.h"
#include "result_export.h"
#include "sweep.h"

namespace railyard::bench {
namespace {

using collectives::DataType;
using collectives::ReduceOp;

TEST(BenchOperation, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kAllreduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kAllgather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kAlltoall, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kBcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kReduce, 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kSendrecv, 4), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kAllgatherv, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kReduceScatterv, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kAlltoallv, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::kAllreduce, 1), 0.0);
}

TEST(BenchOperation, BlockedOperationsRoundToWholeBlocks) {
  // 100 bytes of float on 3 ranks: 25 elements, 24 in blocks of 8.
  EXPECT_EQ(elements_for(Operation::kAllgather, 100, 4, 3), 24U);
  EXPECT_EQ(elements_for(Operation::kAllreduce, 100, 4, 3), 25U);
  EXPECT_EQ(elements_for(Operation::kBarrier, 100, 4, 3), 0U);
  EXPECT_EQ(call_count(Operation::kAllgather, 24, 3), 8U);
  EXPECT_EQ(call_count(Operation::kBcast, 24, 3), 24U);
  EXPECT_EQ(send_elements(Operation::kAllgather, 24, 3), 8U);
  EXPECT_EQ(recv_elements(Operation::kAllgather, 24, 3), 24U);
  EXPECT_EQ(send_elements(Operation::kReduceScatter, 24, 3), 24U);
  EXPECT_EQ(recv_elements(Operation::kReduceScatter, 24, 3), 8U);
  EXPECT_EQ(send_elements(Operation::kBcast, 24, 3), 0U);
  EXPECT_EQ(send_elements(Operation::kGather, 24, 3), 8U);
  EXPECT_EQ(recv_elements(Operation::kGather, 24, 3), 24U);
  EXPECT_EQ(send_elements(Operation::kScatter, 24, 3), 24U);
  EXPECT_EQ(recv_elements(Operation::kScatter, 24, 3), 8U);
  EXPECT_EQ(elements_for(Operation::kScatter, 100, 4, 3), 24U);
  // The v-forms move their block form's data.
  EXPECT_EQ(call_count(Operation::kAllgatherv, 24, 3), 8U);
  EXPECT_EQ(recv_elements(Operation::kReduceScatterv, 24, 3), 8U);
  EXPECT_EQ(send_elements(Operation::kAlltoallv, 24, 3), 24U);
}

TEST(BenchOperation, NamesRoundTrip) {
  for (const auto operation :
       {Operation::kAllreduce, Operation::kBcast, Operation::kReduce, Operation::kAllgather,
        Operation::kReduceScatter, Operation::kAlltoall, Operation::kBarrier, Operation::kSendrecv,
        Operation::kGather, Operation::kScatter, Operation::kAllgatherv, Operation::kAlltoallv,
        Operation::kReduceScatterv}) {
    EXPECT_EQ(operation_named(to_string(operation)), operation) << to_string(operation);
    EXPECT_NE(operation_names().find(to_string(operation)), std::string_view::npos);
  }
  EXPECT_FALSE(operation_named("all_reduce"));
}

TEST(BenchSweep, SizesGrowByTheFactorOrTheStep) {
  EXPECT_EQ(sweep_sizes(8, 64, 2, 0), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(0, 5, 4, 0), (std::vector<std::size_t>{0, 1, 4}));
  EXPECT_EQ(sweep_sizes(10, 35, 2, 10), (std::vector<std::size_t>{10, 20, 30}));
  // Near the top of size_t the sweep ends instead of wrapping around.
  const std::size_t top = SIZE_MAX;
  EXPECT_EQ(sweep_sizes(top / 2 + 1, top, 2, 0).size(), 1U);
  // (2^62 + 1) * 5 wraps to 2^62 + 5: a bigger size, but not a real one.
  EXPECT_EQ(sweep_sizes((std::size_t{1} << 62) + 1, top, 5, 0).size(), 1U);
  EXPECT_EQ(sweep_sizes(top - 1, top, 0, 5).size(), 1U);
}

BenchOptions resolved(const std::vector<std::pair<std::string, std::string>>& flags) {
  BenchArguments arguments;
  arguments.operation = "allreduce";
  for (const auto& [flag, value] : flags) {
    if (flag == "operation") {
      arguments.operation = value;
    } else if (flag == "-b") {
      arguments.min_bytes = value;
    } else if (flag == "-e") {
      arguments.max_bytes = value;
    } else if (flag == "-f") {
      arguments.factor = value;
    } else if (flag == "-t") {
      arguments.type = value;
    } else if (flag == "-o") {
      arguments.op = value;
    } else if (flag == "-a") {
      arguments.algorithm = value;
    } else if (flag == "-r") {
      arguments.root = std::stoi(value);
    }
  }
  return resolve(arguments);
}

// The message of what `flags` throw (of type Error), or "" when nothing.
template <typename Error>
std::string refusal(const std::vector<std::pair<std::string, std::string>>& flags) {
  try {
    (void)resolved(flags);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(BenchOptions, ReadsSizesTypesAndOperations) {
  const BenchOptions options = resolved({{"operation", "reduce_scatter"},
                                         {"-b", "1k"},
                                         {"-e", "256M"},
                                         {"-f", "4"},
                                         {"-t", "bfloat16"},
                                         {"-o", "max"},
                                         {"-a", "ring"}});
  EXPECT_EQ(options.sweep.operation, Operation::kReduceScatter);
  EXPECT_EQ(options.min_bytes, 1024U);
  EXPECT_EQ(options.max_bytes, std::size_t{256} << 20);
  EXPECT_EQ(options.factor, 4U);
  EXPECT_EQ(options.sweep.type, DataType::kBfloat16);
  EXPECT_EQ(options.sweep.op, ReduceOp::kMax);
  EXPECT_EQ(options.algorithm, "ring");
}

TEST(BenchOptions, EveryBadFlagIsNamedWithItsValueAndWhatItTakes) {
  EXPECT_NE(refusal<std::invalid_argument>({{"operation", "allreduse"}})
                .find("operation 'allreduse': expected one of allreduce, bcast"),
            std::string::npos);
  EXPECT_NE(refusal<std::invalid_argument>({{"-b", "8x"}}).find("-b '8x': expected a size"),
            std::string::npos);
  EXPECT_NE(
      refusal<std::invalid_argument>({{"-b", "64M"}, {"-e", "8"}}).find("-b 64M is above -e 8"),
      std::string::npos);
  EXPECT_NE(refusal<std::invalid_argument>({{"-f", "1"}}).find("-f '1': expected a whole factor"),
            std::string::npos);
  EXPECT_NE(
      refusal<std::invalid_argument>({{"-t", "flaot"}}).find("-t 'flaot': expected one of int8"),
      std::string::npos);
  EXPECT_NE(refusal<std::invalid_argument>({{"-o", "avg"}}).find("-o 'avg': expected one of sum"),
            std::string::npos);
  EXPECT_NE(refusal<std::invalid_argument>({{"-r", "-1"}}).find("-r -1: expected a rank"),
            std::string::npos);
  EXPECT_NE(refusal<std::invalid_argument>({{"operation", "sendrecv"}, {"-a", "ring"}})
                .find("-a 'ring': sendrecv has no algorithms"),
            std::string::npos);
  // The library's own checks, with its own messages, naming the flags.
  const std::string pairing = refusal<std::invalid_argument>({{"-t", "float"}, {"-o", "bxor"}});
  EXPECT_NE(pairing.find("-o with -t: operation bxor"), std::string::npos) << pairing;
  EXPECT_NE(pairing.find("float"), std::string::npos) << pairing;
  const std::string algorithm = refusal<std::invalid_argument>({{"-a", "tree"}});
  EXPECT_NE(algorithm.find("-a 'tree': allreduce has no algorithm 'tree'"), std::string::npos)
      << algorithm;
  EXPECT_NE(algorithm.find("recursive_doubling"), std::string::npos) << algorithm;
  // A bitwise operation is no error where nothing is reduced.
  EXPECT_EQ(
      refusal<std::invalid_argument>({{"operation", "bcast"}, {"-t", "float"}, {"-o", "bxor"}}),
      "");
}

// The output every rank of `shape` should hold, built from the inputs here
// (and the library's reduction kernel), element by element.
std::vector<std::byte> right_output(const CheckShape& shape, int rank, std::size_t elements) {
  const std::size_t element = collectives::size_of(shape.type);
  const std::size_t block = elements / static_cast<std::size_t>(shape.ranks);
  std::vector<std::vector<std::byte>> inputs;
  for (int r = 0; r < shape.ranks; ++r) {
    const std::size_t sends =
        std::max(send_elements(shape.operation, elements, shape.ranks), elements);
    inputs.emplace_back(sends * element);
    fill_input(shape, r, inputs.back().data(), 0, sends);
  }
  std::vector<std::byte> out(recv_elements(shape.operation, elements, shape.ranks) * element);
  const auto at = [&](int r, std::size_t index) { return inputs[r].data() + index * element; };
  for (std::size_t i = 0; i < out.size() / element; ++i) {
    std::byte* slot = out.data() + i * element;
    switch (data_of(shape.operation)) {
      case Operation::kAllgather:
      case Operation::kGather:
        std::memcpy(slot, at(static_cast<int>(i / block), i % block), element);
        break;
      case Operation::kScatter:
        std::memcpy(slot, at(shape.root, rank * block + i), element);
        break;
      case Operation::kAlltoall:
        std::memcpy(slot, at(static_cast<int>(i / block), rank * block + i % block), element);
        break;
      case Operation::kBcast:
        std::memcpy(slot, at(shape.root, i), element);
        break;
      case Operation::kSendrecv:
        std::memcpy(slot, at((rank + shape.ranks - 1) % shape.ranks, i), element);
        break;
      default: {  // the reductions
        const std::size_t index =
            data_of(shape.operation) == Operation::kReduceScatter ? rank * block + i : i;
        std::memcpy(slot, at(0, index), element);
        for (int r = 1; r < shape.ranks; ++r) {
          collectives::reduce(shape.type, shape.op, slot, slot, at(r, index), 1);
        }
      }
    }
  }
  return out;
}

TEST(BenchCheck, CountsWhatIsWrongAndNothingElse) {
  const std::size_t elements = std::size_t{3} * 37;
  for (const Operation operation :
       {Operation::kAllreduce, Operation::kReduceScatter, Operation::kAllgather,
        Operation::kAlltoall, Operation::kBcast, Operation::kSendrecv, Operation::kReduce,
        Operation::kGather, Operation::kScatter, Operation::kAllgatherv, Operation::kAlltoallv,
        Operation::kReduceScatterv}) {
    for (const DataType type : collectives::kAllDataTypes) {
      for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax, ReduceOp::kBxor}) {
        if (collectives::is_bitwise(op) && !collectives::is_integer(type)) {
          continue;
        }
        const CheckShape shape{operation, type, op, 3, 2};
        SCOPED_TRACE(std::string(to_string(operation)) + " " +
                     std::string(collectives::to_string(type)) + " " +
                     std::string(collectives::to_string(op)));
        const int rank = 2;
        std::vector<std::byte> out = right_output(shape, rank, elements);
        EXPECT_EQ(count_wrong(shape, rank, out.data(), elements), 0U);
        // Two elements swapped with ones of another block: both wrong,
        // unless equal.
        const std::size_t element = collectives::size_of(type);
        const std::size_t outputs = out.size() / element;
        std::vector<std::byte> swapped = out;
        std::memcpy(swapped.data(), out.data() + (outputs - 1) * element, element);
        std::memcpy(swapped.data() + (outputs - 1) * element, out.data(), element);
        const bool same =
            std::memcmp(out.data(), out.data() + (outputs - 1) * element, element) == 0;
        EXPECT_EQ(count_wrong(shape, rank, swapped.data(), elements), same ? 0U : 2U);
        // Nothing written: every element wrong.
        poison(out.data(), out.size());
        EXPECT_EQ(count_wrong(shape, rank, out.data(), elements), outputs);
      }
    }
  }
}

TEST(BenchCheck, SumsStayExactOnManyRanks) {
  // Inputs shrink with the rank count, so 16 ranks' int8 sum cannot wrap.
  const CheckShape shape{Operation::kAllreduce, DataType::kInt8, ReduceOp::kSum, 16, 0};
  const std::vector<std::byte> out = right_output(shape, 0, 1000);
  EXPECT_EQ(count_wrong(shape, 0, out.data(), 1000), 0U);
}

RunInfo example_info() {
  RunInfo info;
  info.subject = "railyard";
  info.library = "railyard";
  info.sweep.operation = Operation::kAllreduce;
  info.ranks = 4;
  info.hosts = 2;
  info.min_bytes = 8;
  info.max_bytes = 16;
  info.factor = 2;
  return info;
}

std::vector<Row> example_rows() {
  Row small{
      .bytes = 8, .elements = 2, .out_of_place = {10.5, 0.001, 0.0015, 0, 12.5}, .in_place = {}};
  small.in_place = Measurement{11.25, 0.0007, 0.00105, 0, 11.5};
  Row large{.bytes = 16, .elements = 4, .out_of_place = {20, 0.2, 0.3, 3, 25}, .in_place = {}};
  large.in_place = Measurement{30, 0.1, 0.15, std::nullopt, 31};
  return {small, large};
}

TEST(BenchReport, RowsHaveNcclTestsColumns) {
  const RunInfo info = example_info();
  const std::vector<Row> rows = example_rows();
  EXPECT_EQ(table_row(info, rows[0]),
            "           8             2     float     sum      -1    10.50   0.001   0.002      0"
            "    11.25   0.001   0.001      0\n");
  EXPECT_NE(table_row(info, rows[1]).find("0.150    N/A"), std::string::npos);
  const std::string footer = table_footer(rows);
  EXPECT_NE(footer.find("# Out of bounds values : 3 FAILED"), std::string::npos) << footer;
  EXPECT_NE(footer.find("# Avg bus bandwidth    : 0.1131"), std::string::npos) << footer;
  EXPECT_NE(column_header().find("#wrong"), std::string::npos);
}

TEST(BenchReport, CsvHasALinePerPlacementAndJsonTheWholeRun) {
  const RunInfo info = example_info();
  const std::vector<Row> rows = example_rows();
  const std::string csv = csv_rows(info, rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  EXPECT_NE(
      csv.find(
          "railyard,allreduce,4,2,float,sum,-1,16,4,in-place,30.000,0.100000,0.150000,,31.000\n"),
      std::string::npos)
      << csv;
  EXPECT_EQ(csv_header().substr(0, 18), "subject,operation,");
  EXPECT_TRUE(csv_header().ends_with(",wrong,max_time_us\n")) << csv_header();
  const auto json = nlohmann::json::parse(json_report(info, rows));
  EXPECT_EQ(json["operation"], "allreduce");
  EXPECT_EQ(json["rows"].size(), 2U);
  EXPECT_EQ(json["rows"][1]["out_of_place"]["wrong"], 3);
  EXPECT_TRUE(json["rows"][1]["in_place"]["wrong"].is_null());
  EXPECT_EQ(json["rows"][0]["out_of_place"]["max_time_us"], 12.5);
  EXPECT_EQ(json["wrong"], 3);
}

}  // namespace
}  // namespace railyard::bench
