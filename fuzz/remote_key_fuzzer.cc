// A rail's remote-key blob (what a peer sends to let this side read or
// write its memory): refused with railyard::Error, or accepted and encoded
// back to the same key.
#include "fuzz/fuzz_support.h"
#include "railyard/rail/detail/remote_key.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railyard;
  rail::RemoteKey key;
  try {
    key = rail::decode_remote_key(fuzz::bytes_of(data, size));
  } catch (const Error& error) {
    fuzz::require(*error.what() != '\0', "a refused key without a reason");
    return 0;
  }
  fuzz::require(key.key.size() <= rail::kMaxRemoteKeyLength, "a key longer than allowed");
  const std::vector<std::byte> encoded = rail::encode_remote_key(key);
  fuzz::require(rail::encode_remote_key(rail::decode_remote_key(encoded)) == encoded,
                "a key changes when decoded again");
  return 0;
}
