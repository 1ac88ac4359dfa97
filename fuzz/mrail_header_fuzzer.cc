// The multi-rail message header (docs/wire-formats.md): whatever arrives on
// a rail is decoded, refused with a reason or accepted; an accepted header
// encodes back to the bytes it came from.
#include <array>
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/mrail/detail/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railyard;
  mrail::Header header;
  std::string error;
  if (!mrail::decode_header(fuzz::bytes_of(data, size), header, error)) {
    fuzz::require(!error.empty(), "a refused header without a reason");
    return 0;
  }
  fuzz::require(size >= mrail::kHeaderSize, "a header accepted from fewer bytes than it holds");
  std::array<std::byte, mrail::kHeaderSize> again{};
  mrail::encode_header(header, again.data());
  fuzz::require(std::memcmp(again.data(), data, mrail::kHeaderSize) == 0,
                "an accepted header does not encode back to its bytes");
  return 0;
}
