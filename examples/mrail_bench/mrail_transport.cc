#include "mrail_transport.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

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
  const bool done = endpoint_.progress_until(
      [&] {
        return std::all_of(posted_.begin(), posted_.end(),
                           [&](std::size_t slot) { return requests_[slot].done(); });
      },
      timeout);
  if (!done) {
    throw std::runtime_error(
        fmt::format("railyard: transfers did not finish within {} ms", timeout.count()));
  }
  for (const std::size_t slot : posted_) {
    if (!requests_[slot].status().ok()) {
      throw std::runtime_error("railyard transfer failed: " + requests_[slot].status().to_string());
    }
  }
  posted_.clear();
}

std::vector<RailBytes> MrailTransport::rail_bytes() const {
  std::vector<RailBytes> out;
  for (const auto& rail : endpoint_.counters().rails) {
    out.push_back(RailBytes{rail.name, rail.bytes_sent, rail.bytes_received});
  }
  return out;
}

}  // namespace railyard::bench
