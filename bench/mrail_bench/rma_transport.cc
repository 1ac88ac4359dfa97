#include "rma_transport.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <utility>

#include "mrail_transport.h"
#include "wait_posted.h"

namespace railyard::bench {
namespace {

// The message that tells the other side the transfers of a window are
// done and flushed: its buffer may be used (or the process may end).
constexpr std::uint64_t kWindowDoneTag = 0xD0;

}  // namespace

RmaTransport::RmaTransport(mrail::Options options, RmaMode mode, std::size_t max_size,
                           std::size_t slots)
    : endpoint_(std::move(options)),
      mode_(mode),
      buffer_(std::max<std::size_t>(max_size, 1)),
      region_(endpoint_.register_memory(buffer_.data(), buffer_.size())),
      requests_(slots + 1) {}  // the last: the flush

// Layout: u32 address length (host order: both sides are this host's
// processes), the address, then the key.
std::vector<std::byte> RmaTransport::address() {
  const std::vector<std::byte> address = endpoint_.address();
  const auto& key = region_.remote_key();
  const auto length = static_cast<std::uint32_t>(address.size());
  std::vector<std::byte> out(sizeof(length) + address.size() + key.size());
  std::memcpy(out.data(), &length, sizeof(length));
  std::copy(address.begin(), address.end(), out.begin() + sizeof(length));
  std::copy(key.begin(), key.end(), out.end() - static_cast<std::ptrdiff_t>(key.size()));
  return out;
}

void RmaTransport::connect(std::span<const std::byte> peer_address) {
  std::uint32_t length = 0;
  if (peer_address.size() < sizeof(length)) {
    throw std::runtime_error("railyard RMA: the peer's address and memory key are malformed");
  }
  std::memcpy(&length, peer_address.data(), sizeof(length));
  const auto rest = peer_address.subspan(sizeof(length));
  if (length > rest.size()) {
    throw std::runtime_error("railyard RMA: the peer's address and memory key are malformed");
  }
  peer_ = endpoint_.insert_peer(rest.first(length));
  remote_.emplace(endpoint_.import_region(peer_, rest.subspan(length)));
}

void RmaTransport::post_send(std::size_t slot, std::size_t size, std::uint64_t tag) {
  Status status;
  if (tag == kDataTag && size != 0) {
    status = mode_ == RmaMode::kGet ? endpoint_.get(requests_[slot], region_, 0, *remote_, 0, size)
                                    : endpoint_.put(requests_[slot], region_, 0, *remote_, 0, size);
    flush_due_ = flush_due_ || mode_ == RmaMode::kPut;
    window_sent_ = true;
  } else {
    status = endpoint_.send(requests_[slot], peer_, buffer_.data(), size, tag);
  }
  if (!status.ok()) {
    throw std::runtime_error("railyard RMA: " + status.to_string());
  }
  posted_.push_back(slot);
}

void RmaTransport::post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) {
  if (tag == kDataTag && size != 0) {
    window_awaited_ = true;  // one-sided: this side waits for the window's end instead
    return;
  }
  const Status status = endpoint_.recv(requests_[slot], peer_, buffer_.data(), size, tag);
  if (!status.ok()) {
    throw std::runtime_error("railyard RMA receive: " + status.to_string());
  }
  posted_.push_back(slot);
}

void RmaTransport::wait_all(std::chrono::milliseconds timeout) {
  const auto progress_until = [&](const std::function<bool()>& done,
                                  std::chrono::milliseconds limit) {
    return endpoint_.progress_until(done, limit);
  };
  wait_posted(posted_, requests_, progress_until, timeout, "railyard RMA");
  if (flush_due_) {
    flush_due_ = false;
    const std::size_t slot = requests_.size() - 1;
    const Status status = endpoint_.flush(requests_[slot], *remote_);
    if (!status.ok()) {
      throw std::runtime_error("railyard RMA flush: " + status.to_string());
    }
    posted_.push_back(slot);
    wait_posted(posted_, requests_, progress_until, timeout, "railyard RMA flush");
  }
  // The window's end, told and awaited by message.
  const std::size_t slot = requests_.size() - 1;
  const auto window_end = [&](const Status& posted) {
    if (!posted.ok()) {
      throw std::runtime_error("railyard RMA: " + posted.to_string());
    }
    posted_.push_back(slot);
    wait_posted(posted_, requests_, progress_until, timeout, "railyard RMA window end");
  };
  if (std::exchange(window_sent_, false)) {
    window_end(endpoint_.send(requests_[slot], peer_, nullptr, 0, kWindowDoneTag));
  }
  if (std::exchange(window_awaited_, false)) {
    window_end(endpoint_.recv(requests_[slot], peer_, nullptr, 0, kWindowDoneTag));
  }
}

std::vector<RailBytes> RmaTransport::rail_bytes() const { return rail_bytes_of(endpoint_); }

}  // namespace railyard::bench
