// The multi-rail layer's user grammars: FI_OFI_MRAIL_CONFIG (the policy
// table), RAILYARD_RAIL_WEIGHTS and FI_OFI_MRAIL_ADDR. The first byte
// chooses the grammar, the rest is the value. Each is accepted, or refused
// with a ConfigError naming the variable and the value; an accepted policy
// table has strictly ascending sizes, and one written back out
// (describe() is for people, so the entries are) parses to the same table.
#include <fmt/format.h>

#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/mrail/options.h"
#include "railyard/mrail/policy_table.h"
#include "railyard/mrail/rail_addresses.h"

namespace {

using namespace railyard;

// An accepted table has strictly ascending sizes, and written back out it
// parses to the same entries.
void check_table(std::string_view input, const mrail::PolicyTable& table) {
  const auto& entries = table.entries();
  fuzz::require(!entries.empty(), "an accepted table without entries");
  std::string written;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    fuzz::require(i == 0 || entries[i].max_size > entries[i - 1].max_size,
                  "accepted sizes that do not ascend");
    written += fmt::format("{}{}:{}", i == 0 ? "" : ",", entries[i].max_size,
                           mrail::to_string(entries[i].policy));
  }
  const mrail::PolicyTable again = mrail::PolicyTable::parse(input, written);
  fuzz::require(again.entries().size() == entries.size(), "a written table parses differently");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    fuzz::require(again.entries()[i].max_size == entries[i].max_size &&
                      again.entries()[i].policy == entries[i].policy,
                  "a written table parses differently");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view text = fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      fuzz::refused_well("FI_OFI_MRAIL_CONFIG", text, [](auto input, auto value) {
        check_table(input, mrail::PolicyTable::parse(input, value));
      });
      break;
    case 1:
      fuzz::refused_well("RAILYARD_RAIL_WEIGHTS", text, [](auto input, auto value) {
        for (const double weight : mrail::parse_rail_weights(input, value)) {
          fuzz::require(weight > 0 && weight < 1e308, "an accepted weight that is not positive");
        }
      });
      break;
    default:
      fuzz::refused_well("FI_OFI_MRAIL_ADDR", text, [](auto input, auto value) {
        fuzz::require(!mrail::parse_rail_addresses(input, value).empty(),
                      "an accepted address list without rails");
      });
      break;
  }
  return 0;
}
