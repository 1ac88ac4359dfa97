#include "railyard/comm/detail/rank_card.h"

#include <fmt/format.h>

#include <string_view>
#include <unordered_map>
#include <utility>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/error.h"

namespace railyard::comm::detail {
namespace {

// A CPU index beyond this is not a CPU: the card is corrupt.
constexpr std::uint32_t kMaxCpus = 1U << 20;

}  // namespace

bootstrap::Blob encode(const RankCard& card) {
  bootstrap::Blob out;
  ByteWriter writer(out);
  writer.u8(RankCard::kVersion);
  writer.string16(card.host);
  writer.u32(card.cpus.size());
  for (const unsigned cpu : card.cpus) {
    writer.u32(cpu);
  }
  writer.u8(card.machine ? 1 : 0);
  if (card.machine) {
    encode(writer, *card.machine);
  }
  writer.u8(card.settings.size());
  for (const JobSetting& setting : card.settings) {
    writer.string16(setting.name);
    writer.string16(setting.value);
  }
  return out;
}

RankCard decode_rank_card(std::span<const std::byte> blob, int rank) {
  ByteReader reader(blob);
  const auto version = reader.u8();
  if (!reader.failed() && version != RankCard::kVersion) {
    throw Error(
        fmt::format("rank {} joined with rank card version {}, this rank speaks {}: "
                    "are all ranks running the same railyard?",
                    rank, version, RankCard::kVersion));
  }
  RankCard card;
  card.host = reader.string16();
  const std::uint32_t count = reader.u32();
  if (count > kMaxCpus || count > reader.remaining() / 4) {
    throw Error(fmt::format("rank {}'s rank card lists {} CPUs in {} bytes: malformed", rank, count,
                            blob.size()));
  }
  card.cpus.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    card.cpus.push_back(reader.u32());
  }
  const std::uint8_t has_machine = reader.u8();
  if (!reader.failed() && has_machine > 1) {
    throw Error(
        fmt::format("rank {}'s rank card has a machine flag of {}, expected 0 or 1: "
                    "malformed",
                    rank, has_machine));
  }
  if (has_machine == 1) {
    std::string error;
    card.machine = decode_host_machine(reader, error);
    if (!card.machine) {
      throw Error(
          fmt::format("rank {}'s rank card of {} bytes carries a malformed machine "
                      "layout: {}",
                      rank, blob.size(), error));
    }
  }
  const std::uint8_t settings = reader.u8();
  for (std::uint8_t i = 0; i < settings && !reader.failed(); ++i) {
    JobSetting setting;
    setting.name = reader.string16();
    setting.value = reader.string16();
    card.settings.push_back(std::move(setting));
  }
  if (reader.failed() || reader.remaining() != 0 || card.host.empty()) {
    throw Error(fmt::format("rank {}'s rank card of {} bytes is malformed", rank, blob.size()));
  }
  return card;
}

HostPeers host_peers(const std::vector<RankCard>& cards, int rank) {
  HostPeers peers;
  const std::string& mine = cards.at(static_cast<std::size_t>(rank)).host;
  for (std::size_t other = 0; other < cards.size(); ++other) {
    if (cards[other].host == mine) {
      if (static_cast<int>(other) == rank) {
        peers.local_rank = static_cast<unsigned>(peers.ranks.size());
      }
      peers.ranks.push_back(static_cast<int>(other));
    }
  }
  return peers;
}

std::vector<int> host_indexes(const std::vector<RankCard>& cards) {
  // One lookup per rank: the world is built from this at start-up, where a
  // scan of every rank per host would grow with ranks times hosts.
  std::unordered_map<std::string_view, int> index_of_host;
  std::vector<int> index;
  index.reserve(cards.size());
  for (const RankCard& card : cards) {
    // A new host takes the next number (the size before it was added).
    const int next = static_cast<int>(index_of_host.size());
    index.push_back(index_of_host.try_emplace(card.host, next).first->second);
  }
  return index;
}

}  // namespace railyard::comm::detail
