// Peers on the same host over shared memory (libfabric's shm), the others
// over the rails: the choice per peer, what the counters show, RAILYARD_SHM.
// Ranks run as threads (one host) and as forked processes that claim two
// hosts through RAILYARD_HOST_ID.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "forked_ranks.h"
#include "mapped_pages.h"
#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/comm/communicator.h"
#include "railyard/comm/window.h"
#include "railyard/common/error.h"
#include "railyard/mrail/endpoint.h"
#include "scoped_env.h"
#include "shm_regions.h"
#include "thread_ranks.h"
#include "tools/support/forked_peer.h"
#include "tools/support/free_port.h"

namespace railyard::comm {
namespace {

using namespace std::chrono_literals;
using railyard::testing::expect_clean;
using railyard::testing::run_ranks;
using railyard::testing::ScopedEnv;

// Byte i of the message from `from` to `to`.
std::byte pattern(int from, int to, std::size_t i) {
  return static_cast<std::byte>((i * 31U) + static_cast<std::size_t>(from * 7 + to));
}

// Every rank sends every other rank a small (eager) and a large
// (rendezvous) message and checks what it receives, byte for byte.
void exchange_with_everyone(const Communicator& world) {
  constexpr std::size_t kSmall = 100;
  constexpr std::size_t kLarge = std::size_t{1} << 20;
  const int me = world.rank();
  std::vector<std::vector<std::byte>> outgoing;
  std::vector<std::vector<std::byte>> incoming;
  std::vector<Request> requests;
  for (int peer = 0; peer < world.size(); ++peer) {
    if (peer == me) {
      continue;
    }
    for (const std::size_t size : {kSmall, kLarge}) {
      auto& out = outgoing.emplace_back(size);
      for (std::size_t i = 0; i < size; ++i) {
        out[i] = pattern(me, peer, i);
      }
      incoming.emplace_back(size);
      requests.push_back(world.irecv(incoming.back().data(), size, peer, static_cast<int>(size)));
      requests.push_back(world.isend(out.data(), size, peer, static_cast<int>(size)));
    }
  }
  Request::wait_all(requests, 30s);
  std::size_t next = 0;
  for (int peer = 0; peer < world.size(); ++peer) {
    if (peer == me) {
      continue;
    }
    for (int kind = 0; kind < 2; ++kind) {
      const auto& got = incoming[next++];
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], pattern(peer, me, i))
            << "rank " << me << ": byte " << i << " of " << got.size() << " from " << peer;
      }
    }
  }
}

struct Traffic {
  std::size_t host_rails = 0;
  std::size_t network_rails = 0;
  std::size_t peerless_rails = 0;   // read now and then: they reach no peer
  std::uint64_t host_bytes = 0;     // sent and received over the host rail
  std::uint64_t host_chunks = 0;    // eager fragments and reads received over it
  std::uint64_t network_bytes = 0;  // over every other rail
};

Traffic traffic_of(const Communicator& world) {
  Traffic traffic;
  for (const auto& rail : world.counters().rails) {
    const std::uint64_t bytes = rail.bytes_sent + rail.bytes_received;
    traffic.peerless_rails += rail.peerless ? 1 : 0;
    traffic.network_rails += rail.host_only ? 0 : 1;
    if (rail.host_only) {
      ++traffic.host_rails;
      traffic.host_bytes += bytes;
      traffic.host_chunks += rail.chunks_received;
    } else {
      traffic.network_bytes += bytes;
    }
  }
  return traffic;
}

TEST(SharedMemory, RanksOfOneHostTalkOverItAndNeverOverTheRails) {
  CommunicatorOptions options;
  options.shared_memory = SharedMemoryMode::kOn;
  expect_clean(run_ranks(
      3,
      [](Communicator& world) {
        for (int peer = 0; peer < world.size(); ++peer) {
          EXPECT_TRUE(world.shares_memory_with(peer)) << "rank " << world.rank() << " to " << peer;
        }
        exchange_with_everyone(world);
        const Traffic traffic = traffic_of(world);
        EXPECT_EQ(traffic.host_rails, 1U);
        EXPECT_GE(traffic.host_bytes, 2 * ((std::uint64_t{1} << 20) + 100));
        EXPECT_EQ(traffic.network_bytes, 0U);
        // No peer is reached over the network rails: they are read now and
        // then, the host rail on every poll.
        EXPECT_GE(traffic.network_rails, 1U);
        EXPECT_EQ(traffic.peerless_rails, traffic.network_rails);
        // A same-host rendezvous is one read, not RAILYARD_PULL_CHUNK's
        // chunks (they keep a socket free; a read of another process's
        // memory holds none): from each peer, one eager fragment for the
        // small message and one read for the large one.
        EXPECT_EQ(traffic.host_chunks, 2U * static_cast<std::uint64_t>(world.size() - 1));
      },
      options));
}

TEST(SharedMemory, OffSendsEverythingOverTheRails) {
  CommunicatorOptions options;
  options.shared_memory = SharedMemoryMode::kOff;
  expect_clean(run_ranks(
      3,
      [](Communicator& world) {
        for (int peer = 0; peer < world.size(); ++peer) {
          EXPECT_FALSE(world.shares_memory_with(peer));
        }
        exchange_with_everyone(world);
        const Traffic traffic = traffic_of(world);
        EXPECT_EQ(traffic.host_rails, 0U);
        EXPECT_EQ(traffic.peerless_rails, 0U);
        EXPECT_GE(traffic.network_bytes, 2 * ((std::uint64_t{1} << 20) + 100));
      },
      options));
}

TEST(SharedMemory, TheVariableIsReadAndCheckedByName) {
  {
    const ScopedEnv shm("RAILYARD_SHM", "OFF");
    EXPECT_EQ(CommunicatorOptions::from_environment().shared_memory, SharedMemoryMode::kOff);
  }
  {
    const ScopedEnv shm("RAILYARD_SHM", " on ");
    EXPECT_EQ(CommunicatorOptions::from_environment().shared_memory, SharedMemoryMode::kOn);
  }
  EXPECT_EQ(CommunicatorOptions::from_environment().shared_memory, SharedMemoryMode::kAuto);
  const ScopedEnv shm("RAILYARD_SHM", "yes");
  try {
    (void)CommunicatorOptions::from_environment();
    FAIL() << "RAILYARD_SHM=yes was accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.input(), "RAILYARD_SHM");
    EXPECT_EQ(error.value(), "yes");
    EXPECT_NE(error.expected().find("auto, on or off"), std::string::npos) << error.what();
  }
}

// Four processes on two emulated hosts (RAILYARD_HOST_ID): each pair on
// one host shares memory, every other pair takes the rails.
TEST(SharedMemory, TheChoiceIsPerPeer) {
  constexpr int kSize = 4;
  const auto host_of = [](int rank) { return rank / 2; };
  const ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1,127.0.0.2");
  const auto ranks = railyard::testing::fork_ranks(
      kSize, "shared-memory-test", 30s,
      [&](int rank) {
        ::setenv("RAILYARD_HOST_ID", fmt::format("host{}", host_of(rank)).c_str(), 1);
        ::setenv("RAILYARD_SHM", "on", 1);
      },
      [&](int /*rank*/, const Communicator& world, tools::Pipe& pipe) {
        std::string report;
        for (int peer = 0; peer < kSize; ++peer) {
          report += world.shares_memory_with(peer) ? 'S' : 'R';
        }
        EXPECT_EQ(world.local_size(), 2);
        exchange_with_everyone(world);
        const Traffic traffic = traffic_of(world);
        report += fmt::format(" host_rails={} host_bytes={} network_bytes={} peerless_rails={}",
                              traffic.host_rails, traffic.host_bytes > 0, traffic.network_bytes > 0,
                              traffic.peerless_rails);
        if (::testing::Test::HasFailure()) {
          report += " (failed)";
        }
        pipe.send_text(report);
      });
  for (int rank = 0; rank < kSize; ++rank) {
    auto& peer = *ranks[static_cast<std::size_t>(rank)];
    std::string routes;
    for (int other = 0; other < kSize; ++other) {
      routes += host_of(other) == host_of(rank) ? 'S' : 'R';
    }
    EXPECT_EQ(peer.pipe().receive_text(60s),
              routes + " host_rails=1 host_bytes=true network_bytes=true peerless_rails=0")
        << "rank " << rank;
    EXPECT_EQ(peer.wait(30s), 0) << "rank " << rank;
  }
}

// Two processes of one host: puts small enough for shm's inject buffers
// and puts it moves by CMA in the call are all in the target's memory after
// flush(), before the message that follows, and a get then reads them back.
// The host rail asks shm for no RMA ordering (rail_limits.cc says why this
// holds anyway); rounds with fresh bytes catch a flush that overtakes a put.
TEST(SharedMemory, PutsOfEverySizeLandBeforeTheFlushAndTheMessageAfterIt) {
  constexpr std::size_t kWindow = (std::size_t{1} << 20) + 8192;
  constexpr std::array<std::pair<std::size_t, std::size_t>, 3> kPuts{
      {{0, 100}, {128, 3000}, {8192, std::size_t{1} << 20}}};  // offset, bytes
  constexpr int kRounds = 12;
  const auto value = [](int round, std::size_t i) {
    return static_cast<std::uint8_t>((i * 13U) + static_cast<std::size_t>(round) * 29U + 1U);
  };
  // Bytes of the puts' ranges in `window_bytes` that are not round `round`'s.
  const auto wrong_in = [&](const std::vector<std::uint8_t>& window_bytes, int round) {
    std::size_t wrong = 0;
    for (const auto& [offset, bytes] : kPuts) {
      for (std::size_t i = offset; i < offset + bytes; ++i) {
        wrong += window_bytes[i] == value(round, i) ? 0 : 1;
      }
    }
    return wrong;
  };
  const auto ranks = railyard::testing::fork_ranks(
      2, "shared-memory-window-test", 60s, [](int /*rank*/) { ::setenv("RAILYARD_SHM", "on", 1); },
      [&](int rank, const Communicator& world, tools::Pipe& pipe) {
        std::vector<std::uint8_t> memory(kWindow, 0);
        Window window(world, memory.data(), memory.size());
        std::string report = world.shares_memory_with(1 - rank) ? "shared" : "rails";
        std::size_t wrong = 0;
        for (int round = 0; round < kRounds; ++round) {
          if (rank == 0) {
            std::vector<std::uint8_t> data(kWindow);
            for (std::size_t i = 0; i < kWindow; ++i) {
              data[i] = value(round, i);
            }
            for (const auto& [offset, bytes] : kPuts) {
              window.put(data.data() + offset, bytes, 1, offset);
            }
            window.flush(1);
            world.send(&round, sizeof(round), 1, 0);
            int checked = -1;
            (void)world.recv(&checked, sizeof(checked), 1, 1);
            std::vector<std::uint8_t> back(kWindow, 0);
            window.get(back.data(), back.size(), 1, 0);
            window.flush(1);
            wrong += wrong_in(back, round);
          } else {
            int announced = -1;
            (void)world.recv(&announced, sizeof(announced), 0, 0);
            wrong += announced == round ? 0 : 1;
            wrong += wrong_in(memory, round);
            world.send(&round, sizeof(round), 0, 1);
          }
        }
        window.fence();
        report += fmt::format(" wrong={} host_bytes={}", wrong, traffic_of(world).host_bytes > 0);
        pipe.send_text(report);
      });
  for (int rank = 0; rank < 2; ++rank) {
    auto& peer = *ranks[static_cast<std::size_t>(rank)];
    EXPECT_EQ(peer.pipe().receive_text(90s), "shared wrong=0 host_bytes=true") << "rank " << rank;
    EXPECT_EQ(peer.wait(30s), 0) << "rank " << rank;
  }
}

}  // namespace
}  // namespace railyard::comm

namespace railyard::comm {
namespace {

class FatalSignal : public ::testing::TestWithParam<int> {};

// What a rank's page tables hold of the shm regions it maps (its own and
// its peers'): "<regions> <pages present in the first MiB of each>".
std::string prefaulted_regions() {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::vector<std::string> regions;
  while (std::getline(maps, line)) {
    const auto at = line.find("/dev/shm/");
    if (at != std::string::npos) {
      regions.push_back(line.substr(at));
    }
  }
  std::string report = std::to_string(regions.size());
  for (const std::string& region : regions) {
    const auto mapping = railyard::testing::mapping_of_file(region);
    if (mapping) {
      report += fmt::format(
          " {}", railyard::testing::present_pages(mapping->start, std::min(mapping->length, kMiB)));
    } else {
      report += " unmapped";
    }
  }
  return report;
}

// Two processes of one host: when the communicator is ready, the first MiB
// of both shm regions is in each one's page tables (RAILYARD_SHM_PREFAULT's
// default), so no message pays a page fault on the command queues; with 0,
// the peer's region is faulted in only as messages go into it.
TEST(SharedMemory, RegionsAreFaultedInWhenMapped) {
  const ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1");
  for (const char* prefault : {"", "0"}) {
    const auto ranks = railyard::testing::fork_ranks(
        2, "shared-memory-test", 30s,
        [&](int /*rank*/) {
          ::setenv("RAILYARD_SHM", "on", 1);
          if (*prefault != '\0') {
            ::setenv("RAILYARD_SHM_PREFAULT", prefault, 1);
          }
        },
        [&](int /*rank*/, const Communicator& /*world*/, tools::Pipe& pipe) {
          pipe.send_text(prefaulted_regions());
        });
    for (int rank = 0; rank < 2; ++rank) {
      auto& peer = *ranks[static_cast<std::size_t>(rank)];
      const std::string report = peer.pipe().receive_text(60s);
      if (*prefault == '\0') {
        EXPECT_EQ(report, "2 256 256") << "rank " << rank;
      } else {
        EXPECT_NE(report, "2 256 256") << "rank " << rank << " with RAILYARD_SHM_PREFAULT=0";
        EXPECT_EQ(report.substr(0, 2), "2 ") << "rank " << rank;
      }
      EXPECT_EQ(peer.wait(30s), 0) << "rank " << rank;
    }
  }
}

TEST(SharedMemory, ThePrefaultSizeIsReadAndCheckedByName) {
  EXPECT_FALSE(CommunicatorOptions::from_environment().shm_prefault.has_value());
  {
    const ScopedEnv prefault("RAILYARD_SHM_PREFAULT", "256k");
    EXPECT_EQ(CommunicatorOptions::from_environment().shm_prefault, std::uint64_t{256} << 10);
  }
  const ScopedEnv prefault("RAILYARD_SHM_PREFAULT", "lots");
  try {
    (void)CommunicatorOptions::from_environment();
    FAIL() << "RAILYARD_SHM_PREFAULT=lots was accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.input(), "RAILYARD_SHM_PREFAULT");
    EXPECT_EQ(error.value(), "lots");
  }
}

// A process that dies of a fatal signal it does not handle removes its
// region on the way out: libfabric's handlers for some signals, ours
// (shm::RegionGuard) for the others.
// Whoever handles a signal before railyard does (a sanitizer's runtime, the
// program) decides what its process does; libfabric's own handlers (INT,
// TERM, SEGV, BUS) come later and chain to them, and SIGABRT we chain.
bool someone_else_handles(int signal) {
  struct sigaction current {};
  (void)::sigaction(signal, nullptr, &current);
  const bool default_action = current.sa_handler == SIG_DFL && (current.sa_flags & SA_SIGINFO) == 0;
  return !default_action && signal != SIGABRT && signal != SIGINT && signal != SIGTERM &&
         signal != SIGSEGV && signal != SIGBUS;
}

TEST_P(FatalSignal, RemovesTheRegion) {
  if (someone_else_handles(GetParam())) {
    GTEST_SKIP() << "this process handles " << sigabbrev_np(GetParam())
                 << " already (a sanitizer?): its handler decides";
  }
  const ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1");
  tools::ForkedPeer process([](tools::Pipe& pipe) {
    mrail::Options options = mrail::Options::from_environment();
    options.host_rail = mrail::HostRailOptions{};
    options.host_rail->host = "signal-test";
    options.host_rail->required = true;
    mrail::Endpoint endpoint(options);
    pipe.send_text("ready");
    std::this_thread::sleep_for(60s);
  });
  ASSERT_EQ(process.pipe().receive_text(30s), "ready");
  const pid_t pid = process.pid();
  EXPECT_EQ(railyard::testing::shm_regions_of(pid), 1U);
  ASSERT_EQ(::kill(pid, GetParam()), 0);
  // libfabric's handlers end the process with exit status 1 rather than
  // re-raising; ours re-raise. Either way it ends, promptly.
  const int status = process.wait(30s);
  EXPECT_TRUE(status == -GetParam() || status == 1) << "status " << status;
  EXPECT_EQ(railyard::testing::shm_regions_of(pid), 0U) << strsignal(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Signals, FatalSignal,
                         // Not SIGILL: libinfinipath (in Debian's libfabric)
                         // handles it, so neither we nor libfabric do.
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV,
                                           SIGBUS, SIGFPE, SIGPIPE, SIGUSR1, SIGALRM, SIGXCPU),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(sigabbrev_np(param.param));
                         });

}  // namespace
}  // namespace railyard::comm
