#include "bench_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::bench {
namespace {

std::size_t size_flag(const char* flag, const std::string& text) {
  if (const auto bytes = try_parse_size(text)) {
    return *bytes;
  }
  throw std::invalid_argument(fmt::format(
      "{} '{}': expected a size in bytes, digits with an optional k, m or g suffix", flag, text));
}

std::string type_names() {
  std::vector<std::string_view> names;
  for (const collectives::DataType type : collectives::kAllDataTypes) {
    names.push_back(collectives::to_string(type));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string op_names() {
  std::vector<std::string_view> names;
  for (const collectives::ReduceOp op : collectives::kAllReduceOps) {
    names.push_back(collectives::to_string(op));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

void add_arguments(CLI::App& app, BenchArguments& arguments) {
  app.add_option("operation", arguments.operation, std::string(operation_names()))->required();
  app.add_option("-b,--minbytes", arguments.min_bytes, "smallest size, bytes (k, m, g suffixes)")
      ->capture_default_str();
  app.add_option("-e,--maxbytes", arguments.max_bytes, "largest size, bytes")
      ->capture_default_str();
  app.add_option("-f,--stepfactor", arguments.factor, "multiply the size by this between sizes")
      ->capture_default_str();
  app.add_option("-i,--stepbytes", arguments.step,
                 "add this many bytes between sizes instead (0: use -f)")
      ->capture_default_str();
  app.add_option("-t,--datatype", arguments.type, "element type: " + type_names())
      ->capture_default_str();
  app.add_option("-o,--op", arguments.op, "reduction: " + op_names())->capture_default_str();
  app.add_option("-r,--root", arguments.root, "root of bcast and reduce")->capture_default_str();
  app.add_option("-a,--algorithm", arguments.algorithm,
                 "run this algorithm (railyard-info --algorithms) instead of the table's choice");
  app.add_option("-n,--iters", arguments.iterations, "timed calls per size")
      ->check(CLI::Range(1, 1000000000))
      ->capture_default_str();
  app.add_option("-w,--warmup_iters", arguments.warmup, "untimed calls per size first")
      ->check(CLI::Range(0, 1000000000))
      ->capture_default_str();
  app.add_option("-c,--check", arguments.check, "check every result once per size (0 or 1)")
      ->check(CLI::Range(0, 1))
      ->capture_default_str();
  app.add_option("--csv", arguments.csv, "also write the results as CSV to this file");
  app.add_option("--json", arguments.json, "also write the results as JSON to this file");
  app.add_option(
      "--label", arguments.label,
      "the subject's name in the CSV and JSON (default: railyard, or railyard:ALGORITHM)");
}

BenchOptions resolve(const BenchArguments& arguments) {
  BenchOptions options;
  const auto operation = operation_named(arguments.operation);
  if (!operation) {
    throw std::invalid_argument(
        fmt::format("operation '{}': expected one of {}", arguments.operation, operation_names()));
  }
  options.sweep.operation = *operation;
  options.min_bytes = size_flag("-b", arguments.min_bytes);
  options.max_bytes = size_flag("-e", arguments.max_bytes);
  if (options.min_bytes > options.max_bytes) {
    throw std::invalid_argument(fmt::format("-b {} is above -e {}: expected -b at most -e",
                                            arguments.min_bytes, arguments.max_bytes));
  }
  options.step = size_flag("-i", arguments.step);
  const auto factor = try_parse_size(arguments.factor);
  if (!factor || *factor < 2) {
    throw std::invalid_argument(
        fmt::format("-f '{}': expected a whole factor of 2 or more", arguments.factor));
  }
  options.factor = *factor;
  const auto type = collectives::data_type_named(arguments.type);
  if (!type) {
    throw std::invalid_argument(
        fmt::format("-t '{}': expected one of {}", arguments.type, type_names()));
  }
  options.sweep.type = *type;
  const auto op = collectives::reduce_op_named(arguments.op);
  if (!op) {
    throw std::invalid_argument(
        fmt::format("-o '{}': expected one of {}", arguments.op, op_names()));
  }
  options.sweep.op = *op;
  if (reduces(*operation)) {
    try {
      collectives::check_pairing(*type, *op, "-o with -t");
    } catch (const railyard::UsageError& error) {
      throw std::invalid_argument(error.what());
    }
  }
  if (arguments.root < 0) {
    throw std::invalid_argument(fmt::format("-r {}: expected a rank, 0 or more", arguments.root));
  }
  options.sweep.root = arguments.root;
  if (!arguments.algorithm.empty()) {
    const auto collective = collective_of(*operation);
    if (!collective) {
      throw std::invalid_argument(fmt::format("-a '{}': {} has no algorithms to choose from",
                                              arguments.algorithm, arguments.operation));
    }
    try {
      (void)collectives::AlgorithmTable::named(*collective, arguments.algorithm);
    } catch (const railyard::UsageError& error) {
      throw std::invalid_argument(fmt::format("-a '{}': {}", arguments.algorithm, error.what()));
    }
  }
  options.algorithm = arguments.algorithm;
  options.sweep.iterations = arguments.iterations;
  options.sweep.warmup = arguments.warmup;
  options.sweep.check = arguments.check != 0;
  options.csv = arguments.csv;
  options.json = arguments.json;
  options.label = arguments.label;
  return options;
}

}  // namespace railyard::bench
