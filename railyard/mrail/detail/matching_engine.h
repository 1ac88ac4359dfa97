// MPI-style matching for one kind of traffic (tagged or untagged): receives
// posted before their message wait in the posted queue, messages that arrive
// before their receive wait in the unexpected queue, both in order, so the
// first match is always the oldest.
#pragma once

#include <cstdint>

#include "railyard/common/intrusive_list.h"
#include "railyard/mrail/detail/inbound_message.h"
#include "railyard/mrail/request.h"

namespace railyard::mrail {

class MatchingEngine {
 public:
  // Whether a receive for (source, tag, ignore) accepts a message.
  [[nodiscard]] static bool matches(PeerId want_source, std::uint64_t want_tag,
                                    std::uint64_t ignore, PeerId source,
                                    std::uint64_t tag) noexcept {
    return (want_source == kAnySource || want_source == source) &&
           ((want_tag ^ tag) & ~ignore) == 0;
  }

  // A message whose turn has come: the oldest posted receive it satisfies,
  // removed from the queue, or nullptr.
  [[nodiscard]] Request* take_posted(const InboundMessage& message) {
    return take_posted(message.source, message.tag);
  }
  [[nodiscard]] Request* take_posted(PeerId source, std::uint64_t tag);
  void add_unexpected(InboundMessage& message) { unexpected_.push_back(message); }

  // A new receive: the oldest unexpected message it accepts, removed from the
  // queue, or nullptr.
  [[nodiscard]] InboundMessage* take_unexpected(PeerId source, std::uint64_t tag,
                                                std::uint64_t ignore);
  // As take_unexpected, without removing it (probe).
  [[nodiscard]] const InboundMessage* peek_unexpected(PeerId source, std::uint64_t tag,
                                                      std::uint64_t ignore) const;
  void post(Request& request) { posted_.push_back(request); }

  // Removes a posted receive; false when it was not in the queue.
  bool cancel(Request& request);
  void remove_unexpected(InboundMessage& message) { unexpected_.erase(message); }

  // The oldest posted receive that names `source` explicitly, or nullptr.
  [[nodiscard]] Request* posted_from(PeerId source) const;

  [[nodiscard]] std::size_t posted_count() const noexcept { return posted_.size(); }
  [[nodiscard]] std::size_t unexpected_count() const noexcept { return unexpected_.size(); }

 private:
  IntrusiveList<Request, &Request::match_hook_> posted_;
  IntrusiveList<InboundMessage, &InboundMessage::match_hook> unexpected_;
};

}  // namespace railyard::mrail
