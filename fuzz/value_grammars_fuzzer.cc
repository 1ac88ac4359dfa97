// The smaller grammars of railyard's variables and flags: byte sizes,
// bounded integers, durations, RAILYARD_RAILS, RAILYARD_NET_IFACES, the
// launcher binding and rstream addresses. The first byte chooses the
// grammar, the rest is the value: accepted within its bounds, or refused
// with a ConfigError naming the input and the value.
#include <chrono>
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/common/detail/parse.h"
#include "railyard/rstream/stream_address.h"
#include "railyard/topology/interface_filter.h"
#include "railyard/topology/local_rails.h"
#include "railyard/topology/rail_mapping.h"

namespace {

using namespace railyard;
using fuzz::refused_well;
using std::chrono::milliseconds;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view text = fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 7) {
    case 0:
      refused_well("RAILYARD_MIN_CHUNK", text, [](auto input, auto value) {
        const auto plain = try_parse_size(value);
        fuzz::require(plain == parse_size(input, value), "parse_size and try_parse_size differ");
      });
      break;
    case 1:
      refused_well("RAILYARD_SPIN_US", text, [](auto input, auto value) {
        const std::uint64_t n = parse_uint(input, value, 3, 1000000);
        fuzz::require(n >= 3 && n <= 1000000, "an integer accepted out of bounds");
      });
      break;
    case 2:
      refused_well("RAILYARD_TIMEOUT", text, [](auto input, auto value) {
        const milliseconds d = parse_duration(input, value, std::chrono::seconds(1),
                                              milliseconds(1), std::chrono::hours(24));
        fuzz::require(d >= milliseconds(1) && d <= std::chrono::hours(24),
                      "a duration accepted out of bounds");
      });
      break;
    case 3:
      refused_well("RAILYARD_RAILS", text, [](auto input, auto value) {
        (void)topology::RailsChoice::parse(value, input);
      });
      break;
    case 4:
      refused_well("RAILYARD_NET_IFACES", text, [](auto input, auto value) {
        (void)topology::InterfaceFilter::parse(value, input);
      });
      break;
    case 5:
      refused_well("RAILYARD_LAUNCHER_BINDING", text, [](auto input, auto value) {
        (void)topology::parse_launcher_binding(value, input);
      });
      break;
    default:
      refused_well("rstream address", text, [](auto input, auto value) {
        const rstream::StreamAddress address = rstream::parse_stream_address(input, value);
        // What it prints parses back to the same address.
        const rstream::StreamAddress again =
            rstream::parse_stream_address(input, address.to_string());
        fuzz::require(again.to_string() == address.to_string(),
                      "a printed address parses to another");
      });
      break;
  }
  return 0;
}
