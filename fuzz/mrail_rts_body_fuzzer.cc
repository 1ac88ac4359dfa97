// The body of a rendezvous request (the keys a receiver reads the sender's
// buffer with): refused with a reason, or accepted and encoded back to the
// same body.
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/mrail/detail/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railyard;
  mrail::RtsBody body;
  std::string error;
  if (!mrail::decode_rts_body(fuzz::bytes_of(data, size), body, error)) {
    fuzz::require(!error.empty(), "a refused body without a reason");
    return 0;
  }
  const std::vector<std::byte> encoded = mrail::encode_rts_body(body);
  mrail::RtsBody again;
  fuzz::require(mrail::decode_rts_body(encoded, again, error), "an encoded body is refused");
  fuzz::require(mrail::encode_rts_body(again) == encoded, "a body changes when decoded again");
  return 0;
}
