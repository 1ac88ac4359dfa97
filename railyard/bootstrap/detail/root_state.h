// The state a RootBootstrap shares between its caller's thread and its
// service thread (root_bootstrap.cc, root_service.cc) and the handshake
// that fills it (root_handshake.cc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "railyard/bootstrap/bootstrap.h"
#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/detail/root_wire.h"
#include "railyard/common/detail/unique_fd.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/framing.h"
#include "railyard/rstream/listener.h"

namespace railyard::bootstrap::detail {

using Clock = std::chrono::steady_clock;

// Largest control-plane frame: an allgather's whole table travels in one.
inline constexpr std::size_t kMaxControlFrame = std::size_t{64} << 20;

// One connection of the control plane: at the root, one per other rank;
// at any other rank, the one to the root.
struct ControlLink {
  int rank = -1;  // the rank at the other end
  rstream::Channel channel;
  rstream::FrameReader reader{kMaxControlFrame};
  std::mutex send_mutex;  // a frame's header and payload leave together
  // Guarded by RootState::mutex.
  bool open = true;
  bool said_bye = false;
};

// A frame to send once the state's lock is released.
struct Outgoing {
  ControlLink* link = nullptr;
  RootMessage type = RootMessage::kBye;
  Blob payload;
};

// One collective at the root, until every rank's part is in.
struct Round {
  std::uint32_t root = kEveryRank;
  int first_rank = -1;  // whose call fixed `root`, for a misuse message
  std::vector<std::optional<Blob>> blobs;
  int arrived = 0;
};

struct RootState {
  int rank = 0;
  int size = 1;
  BootstrapOptions options;
  std::vector<Blob> descriptors;
  // At the root, indexed by rank (null at 0); elsewhere, one link (rank 0).
  std::vector<std::unique_ptr<ControlLink>> links;
  // The root keeps listening once the job is complete, to refuse late
  // connections at once rather than leave them retrying until their timeout.
  std::unique_ptr<rstream::Listener> listener;

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::optional<JobFailure> failure;
  // The store: its values live at the root; other ranks wait for answers.
  std::map<std::string, Blob, std::less<>> values;
  std::multimap<std::string, std::pair<ControlLink*, std::uint64_t>, std::less<>> waiting_gets;
  std::map<std::uint64_t, std::optional<Blob>> answers;
  std::uint64_t next_get_id = 1;
  // Collectives, numbered in call order on every rank.
  std::uint64_t next_seq = 0;
  std::map<std::uint64_t, Round> rounds;  // at the root
  std::map<std::uint64_t, std::vector<Blob>> results;
  bool stopping = false;

  UniqueFd wake;  // an eventfd the service thread polls with the channels
  std::thread service;

  [[nodiscard]] bool is_root() const noexcept { return rank == 0; }
  [[nodiscard]] ControlLink& root_link() const { return *links.front(); }

  // Handshake (root_handshake.cc): fills links and descriptors or throws.
  void host(std::span<const std::byte> descriptor);
  void join(std::span<const std::byte> descriptor);

  // Service (root_service.cc).
  void start_service();
  void stop_service() noexcept;
  void wake_service() const noexcept;
  // Under the lock: what a frame from `link` changes, and what to send.
  void handle(ControlLink& link, const rstream::Frame& frame, std::vector<Outgoing>& out);
  void on_closed(ControlLink& link, const std::string& why, std::vector<Outgoing>& out);
  // Under the lock: records the job's first failure, tells every other
  // open link (the root) and wakes the waiters.
  void fail(const JobFailure& what, std::vector<Outgoing>& out);
  // Under the lock, at the root: `rank`'s part of collective `gather.seq`.
  void contribute(int from, Gather gather, std::vector<Outgoing>& out);
  // Under the lock, at the root: stores a value and answers its waiters.
  void store_value(const std::string& key, Blob value, std::vector<Outgoing>& out);

 private:
  void serve() noexcept;
  // Reads every frame `link` has; false once it closed.
  bool drain(ControlLink& link);
  void refuse_latecomers();
};

// Sends each frame (outside the state's lock); a failure shows up as the
// link closing, which the service thread handles.
void send_all(std::vector<Outgoing>& out) noexcept;
void send_one(ControlLink& link, RootMessage type, std::span<const std::byte> payload) noexcept;
// "rank 2" or "ranks 2 and 5", for messages.
[[nodiscard]] std::string rank_list(const std::vector<int>& ranks);
// Tells a connection why it is not admitted, and closes it.
void refuse(ControlLink& link, Refusal reason, const std::string& message);

}  // namespace railyard::bootstrap::detail
