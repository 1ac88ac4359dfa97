#include "mrail_transport.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "wait_posted.h"

namespace railyard::bench {

MrailTransport::MrailTransport(mrail::Options options, std::size_t max_size, std::size_t slots)
    : endpoint_(std::move(options)),
      buffer_(std::max<std::size_t>(max_size, 1)),
      requests_(slots) {}

void MrailTransport::connect(std::span<const std::byte> peer_address) {
  peer_ = endpoint_.insert_peer(peer_address);
}

void MrailTransport::post_send(std::size_t slot, std::size_t size, std::uint64_t tag) {
  const Status status = endpoint_.send(requests_[slot], peer_, buffer_.data(), size, tag);
  if (!status.ok()) {
    throw std::runtime_error("railyard send: " + status.to_string());
  }
  posted_.push_back(slot);
}

void MrailTransport::post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) {
  const Status status = endpoint_.recv(requests_[slot], peer_, buffer_.data(), size, tag);
  if (!status.ok()) {
    throw std::runtime_error("railyard receive: " + status.to_string());
  }
  posted_.push_back(slot);
}

void MrailTransport::wait_all(std::chrono::milliseconds timeout) {
  wait_posted(
      posted_, requests_,
      [&](const std::function<bool()>& done, std::chrono::milliseconds limit) {
        return endpoint_.progress_until(done, limit);
      },
      timeout, "railyard");
}

std::vector<RailBytes> rail_bytes_of(const mrail::Endpoint& endpoint) {
  std::vector<RailBytes> out;
  for (const auto& rail : endpoint.counters().rails) {
    out.push_back(RailBytes{rail.name, rail.bytes_sent, rail.bytes_received});
  }
  return out;
}

std::vector<RailBytes> MrailTransport::rail_bytes() const { return rail_bytes_of(endpoint_); }

}  // namespace railyard::bench
