// railyard-bench's command line, nccl-tests' flags where it has them:
//   railyard-bench OPERATION -b 8 -e 256M -f 2 -t float -o sum [-r root]
//                  [-a algorithm] [-n iters] [-w warmup] [-c 0|1]
//                  [--csv FILE] [--json FILE] [--label NAME]
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

#include "sweep.h"

namespace railyard::bench {

// The flags as given.
struct BenchArguments {
  std::string operation;
  std::string min_bytes = "8";
  std::string max_bytes = "32M";
  std::string factor = "2";
  std::string step = "0";
  std::string type = "float";
  std::string op = "sum";
  int root = 0;
  std::string algorithm;
  int iterations = 20;
  int warmup = 5;
  int check = 1;
  std::string csv;
  std::string json;
  std::string label;
};

// What they mean, checked.
struct BenchOptions {
  std::string program = "railyard-bench";  // the tool's name, for its notes
  SweepOptions sweep;
  std::string algorithm;  // "" for the table's choice
  std::size_t min_bytes = 0;
  std::size_t max_bytes = 0;
  std::size_t factor = 2;
  std::size_t step = 0;
  std::string csv;   // "" for none
  std::string json;  // "" for none
  std::string label;
};

void add_arguments(CLI::App& app, BenchArguments& arguments);

// Throws std::invalid_argument naming the flag, its value and what it
// takes, or the library's UsageError for an algorithm the operation lacks
// or a type the operation cannot reduce.
[[nodiscard]] BenchOptions resolve(const BenchArguments& arguments);

}  // namespace railyard::bench
