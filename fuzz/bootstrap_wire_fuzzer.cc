// The root bootstrap's messages (comm/bootstrap/detail/root_wire.h), which
// a root reads from any process that connects to its port and a rank reads
// from the root. The first byte chooses the message type, the rest is its
// payload: refused with a reason, or accepted, and what was accepted
// encodes and decodes back to the same bytes.
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/comm/bootstrap/detail/root_wire.h"

namespace {

using namespace railyard::comm::detail;
namespace fuzz = railyard::fuzz;

template <typename Message>
void round_trip(std::span<const std::byte> in) {
  Message message;
  std::string error;
  if (!decode(in, message, error)) {
    fuzz::require(!error.empty(), "a refused message without a reason");
    return;
  }
  const Blob encoded = encode(message);
  Message again;
  fuzz::require(decode(encoded, again, error), "an encoded message is refused");
  fuzz::require(encode(again) == encoded, "a message changes when decoded again");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const auto rest = fuzz::bytes_of(data + 1, size - 1);
  switch (data[0] % 10) {
    case 0:
      round_trip<Hello>(rest);
      break;
    case 1:
      round_trip<Refuse>(rest);
      break;
    case 2:
      round_trip<Table>(rest);
      break;
    case 3:
      round_trip<SetKey>(rest);
      break;
    case 4:
      round_trip<GetKey>(rest);
      break;
    case 5:
      round_trip<Value>(rest);
      break;
    case 6:
      round_trip<Gather>(rest);
      break;
    case 7:
      round_trip<Gathered>(rest);
      break;
    case 8:
      round_trip<Abort>(rest);
      break;
    default:
      round_trip<Failed>(rest);
      break;
  }
  return 0;
}
