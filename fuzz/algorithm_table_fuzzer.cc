// RAILYARD_ALGO, the collectives' algorithm overrides: accepted, or refused
// with a ConfigError naming the variable and the value; an accepted table
// answers every choice with an algorithm of the collective asked about.
#include "fuzz/fuzz_support.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railyard;
  constexpr std::string_view kInput = "RAILYARD_ALGO";
  const std::string_view text = fuzz::text_of(data, size);
  try {
    const collectives::AlgorithmTable table(kInput, text);
    for (const collectives::Algorithm* algorithm : collectives::all_algorithms()) {
      for (const std::size_t bytes : {std::size_t{0}, std::size_t{4096}, std::size_t{1} << 30}) {
        fuzz::require(
            table.choose(algorithm->collective, bytes, 5).collective == algorithm->collective,
            "a choice of another collective's algorithm");
      }
    }
  } catch (const ConfigError& error) {
    fuzz::require_names(error, kInput, text);
  }
  return 0;
}
