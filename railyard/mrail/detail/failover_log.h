// Rail failover's log of each path (docs/architecture.md, "Rail failover"):
// a sender numbers the messages it puts on a path and keeps them
// (Path::unacked) until an acknowledgement covers them; a receiver counts
// the numbered messages that arrive in order on each path and acknowledges
// them, on the messages it sends back or, without any, every few.
#pragma once

#include <cstddef>
#include <cstdint>

#include "railyard/mrail/detail/peer.h"
#include "railyard/mrail/detail/wire.h"

namespace railyard::mrail::detail {

struct Core;

class FailoverLog {
 public:
  explicit FailoverLog(Core& core) noexcept : core_(core) {}

  // The number of the next message put on a path that has numbered `sent`.
  [[nodiscard]] static std::uint32_t next_path_seq(std::uint32_t& sent) noexcept {
    if (++sent == 0) {
      ++sent;  // 0 marks a message as unnumbered
    }
    return sent;
  }
  // A numbered message arrived from `peer` on our rail `rail`.
  void note_arrival(Peer& peer, const Header& header, std::size_t rail);
  // Fills in an acknowledgement owed to `peer`, if any, on a message to it.
  static void attach_ack(Peer& peer, Header& header) noexcept;
  // Takes an acknowledgement of our path on `path_rail`; false (and the
  // message dropped) when it names no path of ours or more than we sent.
  [[nodiscard]] bool take_ack(Peer& peer, std::uint8_t path_rail, std::uint8_t epoch,
                              std::uint32_t acked, std::size_t rail);
  // The acknowledgements owed for kAckEvery messages or more that nothing
  // carried, as kAck messages (once the message that made them due is
  // handled).
  void flush_if_due() {
    if (due_) {
      flush();
    }
  }
  // Every acknowledgement owed, whatever the count (closing).
  void send_all_owed();
  // Acknowledges `sender_rail`'s messages from `peer` now.
  void send_ack(Peer& peer, std::uint8_t sender_rail);
  // The path an answer to a message that came on our rail `arrival_rail`
  // goes back by: that one while up, else the home path.
  [[nodiscard]] static std::size_t reply_path(const Peer& peer, std::size_t arrival_rail) noexcept;

 private:
  void flush();

  Core& core_;
  bool due_ = false;  // some peer is owed a kAck
};

}  // namespace railyard::mrail::detail
