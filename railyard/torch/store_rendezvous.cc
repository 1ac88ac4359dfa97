#include "railyard/torch/store_rendezvous.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/bootstrap/root_listen_host.h"
#include "railyard/rstream/listener.h"

namespace railyard::pytorch {
namespace {

constexpr const char* kRootKey = "railyard/root";
constexpr const char* kRootMagic = "railyard-root-1";

std::vector<std::uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

std::string text_of(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

}  // namespace

comm::Communicator join_world(c10d::Store& store, int rank, int size,
                              std::chrono::milliseconds timeout) {
  bootstrap::BootstrapOptions options = bootstrap::BootstrapOptions::from_environment();
  std::optional<rstream::Listener> listener;
  if (rank == 0) {
    const char* master =
        std::getenv("MASTER_ADDR");  // NOLINT(concurrency-mt-unsafe): read once, at setup
    const std::string host = bootstrap::root_listen_host(master == nullptr ? "" : master);
    listener.emplace(fmt::format("tcp://{}:0", host), options.channel);
    options.root = fmt::format("tcp://{}:{}", host, listener->port());
    options.job_key = bootstrap::random_job_key();
    store.set(kRootKey,
              bytes_of(fmt::format("{} {} {}", kRootMagic, options.root, options.job_key)));
  } else {
    const std::string text = text_of(store.get(kRootKey));
    std::istringstream fields(text);
    std::string magic;
    std::string extra;
    fields >> magic >> options.root >> options.job_key >> extra;
    TORCH_CHECK(
        magic == kRootMagic && !options.root.empty() && !options.job_key.empty() && extra.empty(),
        "railyard: the store's key '", kRootKey, "' holds '", text.substr(0, 60),
        "', expected what rank 0 of a railyard process group writes there ('", kRootMagic,
        " <address> <job key>'): is another backend using the same store?");
  }
  comm::CommunicatorOptions communicator = comm::CommunicatorOptions::from_environment();
  if (!communicator.timeout) {
    communicator.timeout = timeout;
  }
  return comm::Communicator::world(
      communicator,
      [&](std::span<const std::byte> card) -> std::unique_ptr<bootstrap::Bootstrap> {
        if (listener) {
          return std::make_unique<bootstrap::RootBootstrap>(std::move(*listener), size, card,
                                                            options);
        }
        return std::make_unique<bootstrap::RootBootstrap>(rank, size, card, options);
      },
      options.timeout);
}

comm::Communicator form_group(const comm::Communicator& world, c10d::Store& store,
                              std::span<const int> ranks) {
  const auto mine = std::ranges::find(ranks, world.rank());
  const auto position = static_cast<std::size_t>(mine - ranks.begin());
  // Each member writes its candidate under its place in the group, then
  // reads all of them; the store is this group's own, so no other group's
  // keys meet these.
  int round = 0;
  const auto agree = [&](std::uint32_t candidate) {
    const std::string prefix = fmt::format("railyard/context/{}/", round++);
    store.set(prefix + std::to_string(position), bytes_of(std::to_string(candidate)));
    std::uint32_t largest = candidate;
    for (std::size_t member = 0; member < ranks.size(); ++member) {
      const std::string value = text_of(store.get(prefix + std::to_string(member)));
      largest = std::max(largest, static_cast<std::uint32_t>(std::stoul(value)));
    }
    return largest;
  };
  return world.create_group(ranks, agree);
}

}  // namespace railyard::pytorch
