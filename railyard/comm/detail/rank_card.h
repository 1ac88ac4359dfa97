// What each rank tells the others when it joins (its bootstrap descriptor):
// the host it runs on and the CPUs it is bound to, so every rank knows its
// local peers and can map rails from their real placements; and, from one
// rank per host, the host's machine layout, so the others need not read it;
// and the settings every rank must share, so a job whose ranks disagree is
// refused as it forms.
// Wire layout in docs/wire-formats.md, "Rank card".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/comm/detail/host_machine.h"
#include "railyard/comm/detail/job_settings.h"

namespace railyard::comm::detail {

struct RankCard {
  static constexpr std::uint8_t kVersion = 3;
  std::string host;            // host_identity()
  std::vector<unsigned> cpus;  // OS indexes it may run on, ascending
  // The host's layout, from the rank that read it for the others
  // (rank_rails.h).
  std::optional<HostMachine> machine;
  // The settings every rank must share (job_settings.h).
  std::vector<JobSetting> settings;
};

[[nodiscard]] bootstrap::Blob encode(const RankCard& card);
// Throws Error naming `rank` and what is wrong for a malformed card.
[[nodiscard]] RankCard decode_rank_card(std::span<const std::byte> blob, int rank);

// Where this rank sits among the ranks of its host.
struct HostPeers {
  std::vector<int> ranks;  // the job's ranks on this host, ascending
  unsigned local_rank = 0;
  [[nodiscard]] unsigned local_size() const noexcept { return static_cast<unsigned>(ranks.size()); }
};

[[nodiscard]] HostPeers host_peers(const std::vector<RankCard>& cards, int rank);

// Which host each rank is on, by rank: hosts are numbered 0, 1, ... in the
// order of their lowest rank.
[[nodiscard]] std::vector<int> host_indexes(const std::vector<RankCard>& cards);

}  // namespace railyard::comm::detail
