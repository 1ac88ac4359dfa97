// A rank killed mid-job (SIGKILL: no goodbye, no closing of anything): every
// other rank's pending receive ends with a RemoteError naming it, whether it
// waits on the dead rank, on a healthy one or on any rank, within seconds
// and without any timeout set; so does an allreduce, which on one host runs
// through the host segment, where no message would tell of the death.
// Ranks are forked processes joined through a root bootstrap on loopback
// rails.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/comm/collectives.h"
#include "railyard/comm/communicator.h"
#include "railyard/common/error.h"
#include "railyard/shm/stale_regions.h"
#include "scoped_env.h"
#include "shm_regions.h"
#include "tools/support/forked_peer.h"
#include "tools/support/free_port.h"

namespace railyard::comm {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using tools::ForkedPeer;
using tools::Pipe;

constexpr int kSize = 4;
constexpr auto kStep = 30s;  // bounds every step of the test
// Every survivor must have its error this soon after the kill.
constexpr auto kBound = 10s;

// Who each survivor waits on: a healthy rank, the victim, or any rank.
int awaited_by(int rank, int victim) {
  switch ((rank - victim + kSize) % kSize) {
    case 1:
      return victim;
    case 2:
      return kAnySource;
    default:
      return (victim + 1) % kSize;  // healthy: it waits itself, and never sends
  }
}

// What the survivors wait in when the victim dies.
enum class Waiting { kReceive, kAllreduce };

// One rank: joins, passes a token around the ring (every pair connected),
// runs an allreduce (the host segment exists from then), reports "ready",
// then the victim sleeps until killed and the others block in a receive
// nobody sends, or an allreduce the victim never joins, and report how it
// ended.
void rank_body(Pipe& pipe, int rank, int victim, Waiting waiting,
               const bootstrap::BootstrapOptions& bootstrap) {
  Communicator world = Communicator::world(
      CommunicatorOptions{},
      [&](std::span<const std::byte> card) -> std::unique_ptr<bootstrap::Bootstrap> {
        return std::make_unique<bootstrap::RootBootstrap>(rank, kSize, card, bootstrap);
      },
      kStep);
  int token = 0;
  const int right = (rank + 1) % kSize;
  const int left = (rank + kSize - 1) % kSize;
  if (rank == 0) {
    world.send(&token, sizeof(token), right, 1);
    (void)world.recv(&token, sizeof(token), left, 1);
  } else {
    (void)world.recv(&token, sizeof(token), left, 1);
    world.send(&token, sizeof(token), right, 1);
  }
  std::vector<float> vector(std::size_t{1} << 18, 1.0F);
  allreduce(world, kInPlace, vector.data(), vector.size(), DataType::kFloat32, ReduceOp::kSum);
  pipe.send_text("ready");
  if (rank == victim) {
    std::this_thread::sleep_for(2 * kStep);
    throw std::runtime_error("the victim was not killed");
  }
  const std::string go = pipe.receive_text(kStep);  // sent right after the kill
  const auto start = Clock::now();
  std::string outcome;
  try {
    if (waiting == Waiting::kReceive) {
      int value = 0;
      (void)world.recv(&value, sizeof(value), awaited_by(rank, victim), 7);
      outcome = "the receive returned";
    } else {
      allreduce(world, kInPlace, vector.data(), vector.size(), DataType::kFloat32, ReduceOp::kSum);
      outcome = "the allreduce returned";
    }
  } catch (const RemoteError& error) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    outcome = fmt::format("RemoteError rank={} ms={} what={}", error.rank().value_or(-1), ms,
                          error.what());
  } catch (const std::exception& error) {
    outcome = fmt::format("other error: {}", error.what());
  }
  pipe.send_text(outcome);
}

class KilledRank : public ::testing::TestWithParam<std::tuple<int, Waiting>> {};

TEST_P(KilledRank, EveryOtherRankGetsAnErrorNamingIt) {
  const int victim = std::get<0>(GetParam());
  const Waiting waiting = std::get<1>(GetParam());
  const testing::ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1,127.0.0.2");
  bootstrap::BootstrapOptions bootstrap;
  bootstrap.root = fmt::format("127.0.0.1:{}", tools::free_tcp_port());
  bootstrap.job_key = "killed-rank-test";
  bootstrap.timeout = kStep;
  std::vector<std::unique_ptr<ForkedPeer>> ranks;
  ranks.reserve(kSize);
  for (int rank = 0; rank < kSize; ++rank) {
    ranks.push_back(std::make_unique<ForkedPeer>([rank, victim, waiting, &bootstrap](Pipe& pipe) {
      rank_body(pipe, rank, victim, waiting, bootstrap);
    }));
  }
  for (int rank = 0; rank < kSize; ++rank) {
    ASSERT_EQ(ranks[static_cast<std::size_t>(rank)]->pipe().receive_text(kStep), "ready")
        << "rank " << rank;
  }
  const pid_t victim_pid = ranks[static_cast<std::size_t>(victim)]->pid();
  const int killed = ranks[static_cast<std::size_t>(victim)]->kill_and_wait();
  EXPECT_EQ(killed, -SIGKILL);
  // Killed outright, the victim left its shared-memory region; the next
  // job's cleanup (run here directly) removes it.
  (void)shm::remove_stale_regions();
  EXPECT_EQ(railyard::testing::shm_regions_of(victim_pid), 0U)
      << "the killed rank's /dev/shm region is still there";
  for (int rank = 0; rank < kSize; ++rank) {
    if (rank != victim) {
      ranks[static_cast<std::size_t>(rank)]->pipe().send_text("go");
    }
  }
  const std::string expected = fmt::format("RemoteError rank={} ", victim);
  for (int rank = 0; rank < kSize; ++rank) {
    if (rank == victim) {
      continue;
    }
    auto& peer = *ranks[static_cast<std::size_t>(rank)];
    const std::string outcome = peer.pipe().receive_text(kStep);
    SCOPED_TRACE(fmt::format("rank {} waiting on {}: {}", rank, awaited_by(rank, victim), outcome));
    ASSERT_EQ(outcome.rfind(expected, 0), 0U);
    const auto ms_at = outcome.find("ms=") + 3;
    const long ms = std::stol(outcome.substr(ms_at));
    EXPECT_LT(ms, std::chrono::duration_cast<std::chrono::milliseconds>(kBound).count());
    EXPECT_NE(outcome.find(fmt::format("rank {}", victim), ms_at), std::string::npos)
        << "the message does not name the rank";
    EXPECT_EQ(peer.wait(kStep), 0) << "rank " << rank << " did not exit cleanly";
  }
}

// A rank in the middle, and the root of the bootstrap itself (which also
// made the host segment).
INSTANTIATE_TEST_SUITE_P(
    Victim, KilledRank,
    ::testing::Combine(::testing::Values(2, 0),
                       ::testing::Values(Waiting::kReceive, Waiting::kAllreduce)),
    [](const ::testing::TestParamInfo<std::tuple<int, Waiting>>& param) {
      return fmt::format("Rank{}{}", std::get<0>(param.param),
                         std::get<1>(param.param) == Waiting::kReceive ? "" : "InAnAllreduce");
    });

}  // namespace
}  // namespace railyard::comm
