// The bodies of the rendezvous protocol's messages: a request-to-send (the
// keys a receiver reads the sender's buffer with) and a FIN (what was read
// over each rail). Each is refused with a reason, or accepted and encoded
// back to the same body.
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/mrail/detail/wire.h"

namespace {

void rts_body(std::span<const std::byte> bytes) {
  using namespace railyard;
  mrail::RtsBody body;
  std::string error;
  if (!mrail::decode_rts_body(bytes, body, error)) {
    fuzz::require(!error.empty(), "a refused RTS body without a reason");
    return;
  }
  const std::vector<std::byte> encoded = mrail::encode_rts_body(body);
  mrail::RtsBody again;
  fuzz::require(mrail::decode_rts_body(encoded, again, error), "an encoded RTS body is refused");
  fuzz::require(mrail::encode_rts_body(again) == encoded, "an RTS body changes when decoded again");
}

void fin_body(std::span<const std::byte> bytes) {
  using namespace railyard;
  mrail::FinBody body;
  std::string error;
  if (!mrail::decode_fin_body(bytes, body, error)) {
    fuzz::require(!error.empty(), "a refused FIN body without a reason");
    return;
  }
  const std::vector<std::byte> encoded = mrail::encode_fin_body(body);
  fuzz::require(encoded.size() == bytes.size(), "a FIN body changes size when encoded again");
  mrail::FinBody again;
  fuzz::require(mrail::decode_fin_body(encoded, again, error), "an encoded FIN body is refused");
  fuzz::require(mrail::encode_fin_body(again) == encoded, "a FIN body changes when decoded again");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = railyard::fuzz::bytes_of(data, size);
  rts_body(bytes);
  fin_body(bytes);
  return 0;
}
