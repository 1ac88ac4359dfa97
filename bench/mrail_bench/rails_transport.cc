#include "rails_transport.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"
#include "railyard/rail/progress.h"
#include "wait_posted.h"

namespace railyard::bench {

RailsTransport::RailsTransport(const std::vector<std::string>& addresses, std::size_t max_size,
                               std::size_t slots)
    : requests_(slots) {
  for (const auto& address : addresses) {
    rail::RailOptions options = rail::RailOptions::from_environment();
    options.address = address;
    rails_.push_back(std::make_unique<rail::Rail>(options));
    pointers_.push_back(rails_.back().get());
    buffers_.emplace_back(std::max<std::size_t>(max_size, 1));
    regions_.push_back(
        rails_.back()->register_memory(buffers_.back().data(), buffers_.back().size()));
  }
}

std::vector<std::byte> RailsTransport::address() {
  std::vector<std::byte> out;
  ByteWriter writer(out);
  writer.u8(rails_.size());
  for (const auto& rail : rails_) {
    writer.blob16(rail->address());
  }
  return out;
}

void RailsTransport::connect(std::span<const std::byte> peer_address) {
  ByteReader reader(peer_address);
  const std::size_t count = reader.u8();
  if (count != rails_.size()) {
    throw std::runtime_error(
        fmt::format("the peer has {} raw rails, this side {}", count, rails_.size()));
  }
  for (const auto& rail : rails_) {
    peers_.push_back(rail->insert_peer(reader.blob16()));
  }
}

void RailsTransport::post_send(std::size_t slot, std::size_t size, std::uint64_t tag) {
  const std::size_t r = slot % rails_.size();
  requests_[slot].reset();
  const Status status =
      rails_[r]->post_tagged_send(requests_[slot], peers_[r], regions_[r].slice(0, size), tag);
  if (!status.ok()) {
    throw std::runtime_error("raw send: " + status.to_string());
  }
  posted_.push_back(slot);
}

void RailsTransport::post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) {
  const std::size_t r = slot % rails_.size();
  requests_[slot].reset();
  const Status status =
      rails_[r]->post_tagged_recv(requests_[slot], regions_[r].slice(0, size), tag);
  if (!status.ok()) {
    throw std::runtime_error("raw receive: " + status.to_string());
  }
  posted_.push_back(slot);
}

void RailsTransport::wait_all(std::chrono::milliseconds timeout) {
  wait_posted(
      posted_, requests_,
      [&](const std::function<bool()>& done, std::chrono::milliseconds limit) {
        return progress_until(pointers_, done, limit, rails_.front()->wait_policy());
      },
      timeout, "raw rails");
}

std::vector<RailBytes> RailsTransport::rail_bytes() const {
  std::vector<RailBytes> out;
  for (const auto& rail : rails_) {
    out.push_back(
        RailBytes{rail->name(), rail->counters().bytes_sent, rail->counters().bytes_received});
  }
  return out;
}

}  // namespace railyard::bench
