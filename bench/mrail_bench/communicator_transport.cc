#include "communicator_transport.h"

#include <algorithm>
#include <cstdlib>
#include <span>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "railyard/bootstrap/root_bootstrap.h"

namespace railyard::bench {

CommunicatorTransport::CommunicatorTransport(bool root, const std::vector<std::string>& rails,
                                             const std::string& policy_table, std::size_t max_size,
                                             std::size_t slots, std::chrono::milliseconds timeout)
    : root_(root),
      timeout_(timeout),
      buffer_(std::max<std::size_t>(max_size, 1)),
      requests_(slots) {
  // Each subject runs in a process of its own, single-threaded here.
  const std::string addresses = fmt::format("{}", fmt::join(rails, ","));
  ::setenv("FI_OFI_MRAIL_ADDR", addresses.c_str(), 1);       // NOLINT(concurrency-mt-unsafe)
  ::setenv("FI_OFI_MRAIL_CONFIG", policy_table.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  if (root_) {
    listener_.emplace(rails.front() + ":0");
    root_address_ = listener_->address().to_string();
  }
}

std::vector<std::byte> CommunicatorTransport::address() {
  const auto* bytes = reinterpret_cast<const std::byte*>(root_address_.data());  // NOLINT
  return root_ ? std::vector<std::byte>(bytes, bytes + root_address_.size())
               : std::vector<std::byte>{};
}

void CommunicatorTransport::connect(std::span<const std::byte> peer_address) {
  if (root_) {
    (void)joined();
    return;
  }
  root_address_.assign(reinterpret_cast<const char*>(peer_address.data()),  // NOLINT
                       peer_address.size());
}

comm::Communicator& CommunicatorTransport::joined() {
  if (world_) {
    return *world_;
  }
  bootstrap::BootstrapOptions bootstrap;
  bootstrap.root = root_address_;
  bootstrap.job_key = "railyard-mrail-bench";
  bootstrap.timeout = timeout_;
  comm::CommunicatorOptions options = comm::CommunicatorOptions::from_environment();
  if (!options.timeout) {
    options.timeout = timeout_;  // bounds the blocking calls of round_trip()
  }
  world_.emplace(comm::Communicator::world(
      options,
      [&](std::span<const std::byte> card) -> std::unique_ptr<bootstrap::Bootstrap> {
        if (root_) {
          return std::make_unique<bootstrap::RootBootstrap>(std::move(*listener_), 2, card,
                                                            bootstrap);
        }
        return std::make_unique<bootstrap::RootBootstrap>(1, 2, card, bootstrap);
      },
      timeout_));
  return *world_;
}

void CommunicatorTransport::post_send(std::size_t slot, std::size_t size, std::uint64_t tag) {
  comm::Communicator& world = joined();
  requests_[slot] = world.isend(buffer_.data(), size, 1 - world.rank(),
                                static_cast<int>(tag % comm::Communicator::kMaxTag));
  posted(slot);
}

void CommunicatorTransport::post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) {
  comm::Communicator& world = joined();
  requests_[slot] = world.irecv(buffer_.data(), size, 1 - world.rank(),
                                static_cast<int>(tag % comm::Communicator::kMaxTag));
  posted(slot);
}

void CommunicatorTransport::posted(std::size_t slot) {
  posted_first_ = std::min(posted_first_, slot);
  posted_last_ = std::max(posted_last_, slot + 1);
}

void CommunicatorTransport::wait_all(std::chrono::milliseconds timeout) {
  try {
    // Slots in between not posted since their last wait are inactive:
    // wait_all skips them.
    if (posted_first_ < posted_last_) {
      comm::Request::wait_all(
          std::span(requests_).subspan(posted_first_, posted_last_ - posted_first_), timeout);
    }
    posted_first_ = SIZE_MAX;
    posted_last_ = 0;
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("communicator: {}", error.what()));
  }
}

void CommunicatorTransport::round_trip(std::size_t size, std::uint64_t tag, bool initiator) {
  comm::Communicator& world = joined();
  const int peer = 1 - world.rank();
  const int user_tag = static_cast<int>(tag % comm::Communicator::kMaxTag);
  try {
    if (initiator) {
      world.send(buffer_.data(), size, peer, user_tag);
      (void)world.recv(buffer_.data(), size, peer, user_tag);
    } else {
      (void)world.recv(buffer_.data(), size, peer, user_tag);
      world.send(buffer_.data(), size, peer, user_tag);
    }
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("communicator: {}", error.what()));
  }
}

}  // namespace railyard::bench
