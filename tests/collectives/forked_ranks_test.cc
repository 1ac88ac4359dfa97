// Collectives on ranks that are processes, as a job runs them: four forked
// processes standing for two hosts of two ranks (RAILYARD_HOST_ID), so that
// each pair on a host talks over libfabric's shm between processes and the
// hosts over the loopback rails. Every rank checks the table's own choices
// (the split-rail allreduce among them) against references computed here
// and reports to the test through a pipe.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "forked_ranks.h"
#include "railyard/collectives/registry.h"
#include "railyard/comm/collectives.h"
#include "railyard/comm/communicator.h"
#include "scoped_env.h"
#include "tools/support/forked_peer.h"

namespace railyard::comm {
namespace {

using namespace std::chrono_literals;
using railyard::testing::ScopedEnv;

constexpr int kHosts = 2;
constexpr int kPerHost = 2;
constexpr int kSize = kHosts * kPerHost;

// Exact in float: any order of summing gives the same sum.
float value(int rank, std::size_t i) {
  return static_cast<float>((rank + 1) * static_cast<int>(i % 11) - 2 * rank);
}

// The first wrong element of one collective, or "".
std::string first_wrong(const char* what, std::size_t count, std::size_t i, float got,
                        float expected) {
  return fmt::format("{} of {} elements: element {} is {}, expected {}", what, count, i, got,
                     expected);
}

// Runs the collectives on `comm` and returns what went wrong ("" if
// nothing), then a hash of a random-float allreduce's bits.
std::string check_collectives(const Communicator& comm, std::uint64_t& bits_hash) {
  const int size = comm.size();
  // 8 B, 64 KiB and a vector of several split-rail segments (odd length).
  for (const std::size_t count : {std::size_t{2}, std::size_t{16384}, std::size_t{3145739}}) {
    std::vector<float> in(count);
    for (std::size_t i = 0; i < count; ++i) {
      in[i] = value(comm.rank(), i);
    }
    std::vector<float> out(count, -1.0F);
    allreduce(comm, in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum);
    for (std::size_t i = 0; i < count; ++i) {
      float sum = 0;
      for (int r = 0; r < size; ++r) {
        sum += value(r, i);
      }
      if (out[i] != sum) {
        return first_wrong("allreduce", count, i, out[i], sum);
      }
    }
    std::vector<float> root_vector = comm.rank() == 1 ? in : std::vector<float>(count, -1.0F);
    bcast(comm, root_vector.data(), count, DataType::kFloat32, 1);
    for (std::size_t i = 0; i < count; ++i) {
      if (root_vector[i] != value(1, i)) {
        return first_wrong("bcast from rank 1", count, i, root_vector[i], value(1, i));
      }
    }
    std::vector<float> gathered(count * static_cast<std::size_t>(size), -1.0F);
    allgather(comm, in.data(), gathered.data(), count, DataType::kFloat32);
    for (std::size_t i = 0; i < gathered.size(); ++i) {
      const float expected = value(static_cast<int>(i / count), i % count);
      if (gathered[i] != expected) {
        return first_wrong("allgather", count, i, gathered[i], expected);
      }
    }
    std::vector<float> whole(count * static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < whole.size(); ++i) {
      whole[i] = value(comm.rank(), i);
    }
    std::vector<float> block(count, -1.0F);
    reduce_scatter(comm, whole.data(), block.data(), count, DataType::kFloat32, ReduceOp::kSum);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t at = static_cast<std::size_t>(comm.rank()) * count + i;
      float sum = 0;
      for (int r = 0; r < size; ++r) {
        sum += value(r, at);
      }
      if (block[i] != sum) {
        return first_wrong("reduce_scatter", count, i, block[i], sum);
      }
    }
    barrier(comm);
  }
  std::mt19937 random(static_cast<unsigned>(comm.rank()) + 7U);
  std::uniform_real_distribution<float> any(-1e3F, 1e3F);
  std::vector<float> data(1500007);
  for (float& x : data) {
    x = any(random);
  }
  allreduce(comm, kInPlace, data.data(), data.size(), DataType::kFloat32, ReduceOp::kSum);
  bits_hash = 1469598103934665603ULL;  // FNV-1a over the result's bits
  for (const float x : data) {
    bits_hash = (bits_hash ^ std::bit_cast<std::uint32_t>(x)) * 1099511628211ULL;
  }
  return "";
}

TEST(ForkedRanks, TwoHostsOfTwoProcessesRunTheCollectivesToTheReference) {
  const ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1,127.0.0.2");
  const auto ranks = railyard::testing::fork_ranks(
      kSize, "forked-collectives-test", 120s,
      [](int rank) {
        ::setenv("RAILYARD_HOST_ID", fmt::format("forked-host{}", rank / kPerHost).c_str(), 1);
        ::setenv("RAILYARD_SHM", "on", 1);
      },
      [](int /*rank*/, const Communicator& world, tools::Pipe& pipe) {
        const collectives::HostShape shape{world.host_count(), world.ranks_per_host()};
        std::string report = fmt::format(
            "hosts={} per_host={} split_rail={} ", shape.hosts, shape.ranks_per_host,
            world.options()
                .algorithms
                .choose(collectives::Collective::kAllreduce, std::size_t{4} << 20, kSize, shape)
                .name);
        std::uint64_t hash = 0;
        const std::string wrong = check_collectives(world, hash);
        report += wrong.empty() ? "ok" : wrong;
        pipe.send_text(report);
        pipe.send_text(fmt::format("{:016x}", hash));
      });
  std::vector<std::string> hashes;
  for (int rank = 0; rank < kSize; ++rank) {
    auto& peer = *ranks[static_cast<std::size_t>(rank)];
    EXPECT_EQ(peer.pipe().receive_text(240s), "hosts=2 per_host=2 split_rail=split_rail ok")
        << "rank " << rank;
    hashes.push_back(peer.pipe().receive_text(30s));
    EXPECT_EQ(peer.wait(60s), 0) << "rank " << rank;
  }
  for (int rank = 1; rank < kSize; ++rank) {
    EXPECT_EQ(hashes[static_cast<std::size_t>(rank)], hashes[0])
        << "rank " << rank << "'s float allreduce differs in its bits from rank 0's";
  }
}

}  // namespace
}  // namespace railyard::comm
