// An endpoint's address blob, as a peer's bootstrap hands it over: refused
// with railyard::Error, or accepted and encoded back to the same address.
#include "fuzz/fuzz_support.h"
#include "railyard/mrail/detail/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railyard;
  mrail::EndpointAddress address;
  try {
    address = mrail::decode_address(fuzz::bytes_of(data, size));
  } catch (const Error& error) {
    fuzz::require(*error.what() != '\0', "a refused address without a reason");
    return 0;
  }
  fuzz::require(address.rails.size() <= mrail::kMaxRails, "more rails accepted than allowed");
  const std::vector<std::byte> encoded = mrail::encode_address(address);
  fuzz::require(mrail::encode_address(mrail::decode_address(encoded)) == encoded,
                "an address changes when decoded again");
  return 0;
}
