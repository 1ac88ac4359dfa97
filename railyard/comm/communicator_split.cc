// dup() and split(): the members allgather (color, key, context candidate)
// over the parent's library tag, then each computes the same
// groups and the same new context id; create_group(): the members agree on
// the context id through the caller (docs/architecture.md, "Communicator").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

#include "railyard/comm/communicator.h"
#include "railyard/comm/detail/group.h"
#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/world.h"
#include "railyard/common/detail/byte_codec.h"
#include "railyard/common/error.h"

namespace railyard::comm {
namespace {

struct SplitEntry {
  std::int32_t color = 0;
  std::int32_t key = 0;
  std::uint32_t candidate = 0;
};

constexpr std::size_t kEntryBytes = 12;
using EntryBytes = std::array<std::byte, kEntryBytes>;

EntryBytes encode(const SplitEntry& entry) {
  EntryBytes out{};
  store_le(out.data(), static_cast<std::uint32_t>(entry.color), 4);
  store_le(out.data() + 4, static_cast<std::uint32_t>(entry.key), 4);
  store_le(out.data() + 8, entry.candidate, 4);
  return out;
}

SplitEntry decode(std::span<const std::byte> bytes) {
  ByteReader reader(bytes);
  SplitEntry entry;
  entry.color = static_cast<std::int32_t>(reader.u32());
  entry.key = static_cast<std::int32_t>(reader.u32());
  entry.candidate = reader.u32();
  return entry;
}

}  // namespace

Communicator Communicator::dup() const { return derive(0, rank()); }

std::optional<Communicator> Communicator::split(int color, int key) const {
  if (color < 0 && color != kUndefinedColor) {
    throw UsageError(fmt::format(
        "split: color {} is invalid: expected 0 or more, or kUndefinedColor to join none", color));
  }
  Communicator made = derive(color, key);
  if (color == kUndefinedColor) {
    return std::nullopt;
  }
  return made;
}

Communicator Communicator::derive(int color, int key) const {
  const int ranks = size();
  const int me = rank();
  const EntryBytes mine = encode({color, key, world_->context_candidate()});
  const std::vector<std::vector<std::byte>> all = allgather_internal(mine);
  std::vector<SplitEntry> entries;
  entries.reserve(all.size());
  std::uint32_t context = 0;
  for (int other = 0; other < ranks; ++other) {
    const auto& bytes = all[static_cast<std::size_t>(other)];
    if (bytes.size() != kEntryBytes) {
      throw RemoteError(other, fmt::format("split: rank {} sent a {}-byte entry, expected {}",
                                           other, bytes.size(), kEntryBytes));
    }
    entries.push_back(decode(bytes));
    context = std::max(context, entries.back().candidate);
  }
  // Every member's candidate is past every context it belongs to, so the
  // largest is new to all of them. Groups of one split share it: they have
  // no member in common, so their messages cannot meet.
  world_->context_taken(context);
  auto group = std::make_shared<detail::Group>();
  group->world = group_->world;
  group->context = context;
  group->rank_of.assign(static_cast<std::size_t>(world_->size()), -1);
  if (color == kUndefinedColor) {
    return Communicator(std::move(group));
  }
  std::vector<std::tuple<int, int, int>> chosen;  // key, rank here, world rank
  for (int other = 0; other < ranks; ++other) {
    const SplitEntry& entry = entries[static_cast<std::size_t>(other)];
    if (entry.color == color) {
      chosen.emplace_back(entry.key, other, group_->members[static_cast<std::size_t>(other)]);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  for (const auto& [member_key, parent_rank, world] : chosen) {
    if (parent_rank == me) {
      group->rank = static_cast<int>(group->members.size());
    }
    group->rank_of[static_cast<std::size_t>(world)] = static_cast<int>(group->members.size());
    group->members.push_back(world);
  }
  return Communicator(std::move(group));
}

Communicator Communicator::create_group(std::span<const int> ranks, const AgreeOnMax& agree) const {
  std::vector<bool> listed(static_cast<std::size_t>(size()), false);
  auto group = std::make_shared<detail::Group>();
  group->world = group_->world;
  group->rank_of.assign(static_cast<std::size_t>(world_->size()), -1);
  for (const int member : ranks) {
    check_peer(member, "create_group", false);
    if (listed[static_cast<std::size_t>(member)]) {
      throw UsageError(fmt::format("create_group: rank {} is listed twice", member));
    }
    listed[static_cast<std::size_t>(member)] = true;
    if (member == rank()) {
      group->rank = static_cast<int>(group->members.size());
    }
    const int world = group_->members[static_cast<std::size_t>(member)];
    group->rank_of[static_cast<std::size_t>(world)] = static_cast<int>(group->members.size());
    group->members.push_back(world);
  }
  if (!listed[static_cast<std::size_t>(rank())]) {
    throw UsageError(fmt::format(
        "create_group: this rank ({}) is not among the {} ranks listed: a rank joins only a "
        "group it belongs to",
        rank(), ranks.size()));
  }
  const std::uint32_t candidate = world_->context_candidate();
  const std::uint32_t context = agree(candidate);
  if (context < candidate) {
    throw UsageError(fmt::format(
        "create_group: the agreement returned context {} for a candidate of {}: expected the "
        "largest candidate of the members, at least this rank's",
        context, candidate));
  }
  world_->context_taken(context);
  group->context = context;
  return Communicator(std::move(group));
}

}  // namespace railyard::comm
