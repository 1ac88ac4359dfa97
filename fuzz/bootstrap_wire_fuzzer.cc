// The root bootstrap's messages (railyard/bootstrap/detail/root_wire.h), which
// a root reads from any process that connects to its port and a rank reads
// from the root. The first byte chooses the message type, the rest is its
// payload: refused with a reason, or accepted, and what was accepted
// encodes and decodes back to the same bytes.
#include <array>
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/bootstrap/detail/root_wire.h"

namespace {

using namespace railyard::bootstrap::detail;
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

// One round trip per message type; the first input byte picks one.
constexpr std::array kMessages{round_trip<Hello>,  round_trip<Refuse>,   round_trip<Table>,
                               round_trip<SetKey>, round_trip<GetKey>,   round_trip<Value>,
                               round_trip<Gather>, round_trip<Gathered>, round_trip<Abort>,
                               round_trip<Failed>};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const auto rest = fuzz::bytes_of(data + 1, size - 1);
  kMessages[data[0] % kMessages.size()](rest);
  return 0;
}
