// rstream's wire messages: the connection data a peer sends when it
// connects, and the control messages of an open stream. The first byte
// chooses which decoder gets the rest. Each refuses with a reason, or
// accepts, and what it accepted encodes and decodes back to itself.
#include <array>
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/rstream/detail/wire.h"

namespace {

using namespace railyard;

void connect_data(std::span<const std::byte> in) {
  std::string error;
  const auto decoded = rstream::decode_connect_data(in, error);
  if (!decoded) {
    fuzz::require(!error.empty(), "refused connection data without a reason");
    return;
  }
  const std::vector<std::byte> encoded = rstream::encode_connect_data(*decoded);
  const auto again = rstream::decode_connect_data(encoded, error);
  fuzz::require(again.has_value(), "encoded connection data is refused");
  fuzz::require(rstream::encode_connect_data(*again) == encoded,
                "connection data changes when decoded again");
}

void control(std::span<const std::byte> in) {
  std::string error;
  const auto decoded = rstream::decode_control(in, error);
  if (!decoded) {
    fuzz::require(!error.empty(), "a refused control message without a reason");
    return;
  }
  std::array<std::byte, rstream::kControlMaxSize> encoded{};
  const std::size_t length = rstream::encode_control(*decoded, encoded.data());
  fuzz::require(length <= encoded.size(), "a control message longer than its maximum");
  const auto again = rstream::decode_control(std::span(encoded).first(length), error);
  fuzz::require(again.has_value(), "an encoded control message is refused");
  std::array<std::byte, rstream::kControlMaxSize> twice{};
  fuzz::require(rstream::encode_control(*again, twice.data()) == length &&
                    std::memcmp(twice.data(), encoded.data(), length) == 0,
                "a control message changes when decoded again");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const auto rest = railyard::fuzz::bytes_of(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    connect_data(rest);
  } else {
    control(rest);
  }
  return 0;
}
