// A rank's card (its host, CPUs and the host's layout), which every rank
// decodes from every other rank's bootstrap blob: refused with
// railyard::Error naming the rank, or accepted and encoded back to itself.
#include <string>

#include "fuzz/fuzz_support.h"
#include "railyard/comm/detail/rank_card.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railyard;
  constexpr int kRank = 7;
  comm::detail::RankCard card;
  try {
    card = comm::detail::decode_rank_card(fuzz::bytes_of(data, size), kRank);
  } catch (const Error& error) {
    fuzz::require(std::string(error.what()).find("rank 7") != std::string::npos,
                  "a refused card whose message does not name the rank");
    return 0;
  }
  const auto encoded = comm::detail::encode(card);
  fuzz::require(comm::detail::encode(comm::detail::decode_rank_card(encoded, kRank)) == encoded,
                "a card changes when decoded again");
  return 0;
}
