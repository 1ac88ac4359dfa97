// The rails of a multi-rail endpoint, each with what the endpoint keeps on
// it: pre-posted receive buffers, a pool of send buffers, the messages
// waiting for one, a registration cache and traffic counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "railyard/mrail/counters.h"
#include "railyard/mrail/detail/registration_cache.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/mrail/peer_id.h"
#include "railyard/rail/rail.h"
#include "railyard/shm/region_guard.h"

namespace railyard::mrail {
class Request;
}  // namespace railyard::mrail

namespace railyard::mrail::detail {

struct Core;

// A pre-posted receive buffer: header plus one fragment.
class RxSlot final : public rail::RailOp {
 public:
  RxSlot(Core& core, std::size_t rail, std::byte* data, std::size_t size)
      : core_(core), rail_(rail), data_(data), size_(size) {}
  [[nodiscard]] std::size_t rail() const noexcept { return rail_; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 protected:
  void on_complete(const rail::Completion& completion) override;

 private:
  Core& core_;
  std::size_t rail_;
  std::byte* data_;
  std::size_t size_;
};

// A registered send buffer, lent to one outgoing message at a time.
class TxSlot final : public rail::RailOp {
 public:
  TxSlot(Core& core, std::size_t rail, std::byte* data) : core_(core), rail_(rail), data_(data) {}
  [[nodiscard]] std::size_t rail() const noexcept { return rail_; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }

  Request* owner = nullptr;  // nullptr for control messages
  PeerId peer;

 protected:
  void on_complete(const rail::Completion& completion) override;

 private:
  Core& core_;
  std::size_t rail_;
  std::byte* data_;
};

// A fragment or control message waiting for a send buffer.
struct Outgoing {
  Header header;
  rail::RailPeer destination;
  PeerId peer;
  const std::byte* payload = nullptr;  // eager payload in the user's buffer
  std::size_t length = 0;
  std::vector<std::byte> body;  // or a body owned here (rendezvous request)
  Request* owner = nullptr;     // nullptr for control messages
};

struct RailState {
  // "198.18.1.0/24"; for the host rail "host:" and the host's name.
  std::string network;
  bool host_only = false;  // the host rail: reaches peers on this host only
  // A path of some inserted peer runs through it (peers are never removed,
  // so this only turns true; see RailSet::mark_peerless).
  bool reaches_peer = false;
  // Slot memory is left uninitialised: the provider or the sender writes
  // every byte before it is read. The receive and send buffers are faulted
  // in at open without being written.
  std::unique_ptr<std::byte[]> receive_memory;
  std::unique_ptr<std::byte[]> send_memory;
  std::unique_ptr<std::byte[]> scratch_memory;  // target of flush reads
  rail::LocalRegion receive_region;
  rail::LocalRegion send_region;
  rail::LocalRegion scratch_region;
  std::vector<std::unique_ptr<RxSlot>> receive_slots;
  std::vector<std::unique_ptr<TxSlot>> send_slots;
  std::vector<TxSlot*> free_slots;
  std::vector<std::byte> inject_scratch;  // see Sender::emit
  // Receive buffers handled and not yet reposted (see RailSet::repost).
  std::vector<RxSlot*> to_repost;
  std::deque<Outgoing> queue;
  std::unique_ptr<RegistrationCache> cache;
  RailTraffic traffic;
  // Why the rail is to be reset, once one is scheduled (RailResets).
  std::optional<std::string> reset_due;
  // Reset even with no read or write held on it.
  bool reset_required = false;
  // The host rail's /dev/shm region, removed if a fatal signal ends us.
  std::unique_ptr<shm::RegionGuard> region_guard;
  // Last, so it closes first: nothing it still references goes before it.
  std::unique_ptr<rail::Rail> rail;
};

class RailSet {
 public:
  explicit RailSet(Core& core) noexcept : core_(core) {}

  // Opens every rail of the core's options, the host rail last when asked
  // for (or says why not), and chooses the home rail. Throws ConfigError or
  // Error when a rail cannot open.
  void open();
  // Closes every rail: no completion can reach an operation after this.
  void close() noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return rails_.size(); }
  [[nodiscard]] RailState& operator[](std::size_t rail) noexcept { return *rails_[rail]; }
  [[nodiscard]] const RailState& operator[](std::size_t rail) const noexcept {
    return *rails_[rail];
  }
  [[nodiscard]] std::size_t network_rails() const noexcept { return network_rails_; }
  [[nodiscard]] std::optional<std::size_t> host_rail() const noexcept { return host_rail_; }
  [[nodiscard]] std::size_t home_rail() const noexcept { return home_rail_; }
  // Every rail, for the waits.
  [[nodiscard]] const std::vector<rail::Rail*>& pointers() const noexcept { return pointers_; }
  // The rails, as the endpoint's address lists them.
  [[nodiscard]] std::vector<RailDescriptor> descriptors() const;
  [[nodiscard]] double weight_of(std::size_t rail) const noexcept;

  // Reposts the handled receive buffers of `rail`, or of every rail.
  // Reposting costs a provider call, so it stays off the path between a
  // message's arrival and its receiver seeing it, and off the path to the
  // next send: it runs after a send has left, as idle work, and at once
  // when half a rail's buffers are waiting.
  void repost(std::size_t rail);
  void repost();
  // After a peer with these paths' rails was inserted: tells each rail
  // whether any peer is reached through it (Rail::set_peerless), so that a
  // rail none uses is read now and then rather than on every poll. Logs
  // each change once.
  void mark_peerless(const std::vector<std::size_t>& used_rails);

 private:
  // Appends a rail; a host rail when `host` names the host.
  void open_rail(const rail::RailOptions& rail_options, std::optional<std::string> host);
  void open_host_rail();
  void choose_home_rail();

  Core& core_;
  std::vector<std::unique_ptr<RailState>> rails_;  // the network rails, then the host rail
  std::size_t network_rails_ = 0;
  std::optional<std::size_t> host_rail_;
  std::size_t home_rail_ = 0;
  std::vector<rail::Rail*> pointers_;
};

}  // namespace railyard::mrail::detail
