#include "railyard/mrail/detail/matching_engine.h"

namespace railyard::mrail {

Request* MatchingEngine::take_posted(PeerId source, std::uint64_t tag) {
  Request* found = posted_.find_if([&](const Request& request) {
    return matches(request.peer_, request.tag_, request.ignore_, source, tag);
  });
  if (found != nullptr) {
    posted_.erase(*found);
  }
  return found;
}

InboundMessage* MatchingEngine::take_unexpected(PeerId source, std::uint64_t tag,
                                                std::uint64_t ignore) {
  auto* found = const_cast<InboundMessage*>(peek_unexpected(source, tag, ignore));
  if (found != nullptr) {
    unexpected_.erase(*found);
  }
  return found;
}

const InboundMessage* MatchingEngine::peek_unexpected(PeerId source, std::uint64_t tag,
                                                      std::uint64_t ignore) const {
  return unexpected_.find_if([&](const InboundMessage& message) {
    return matches(source, tag, ignore, message.source, message.tag);
  });
}

bool MatchingEngine::cancel(Request& request) {
  if (!request.match_hook_.linked()) {
    return false;
  }
  posted_.erase(request);
  return true;
}

Request* MatchingEngine::posted_from(PeerId source) const {
  return posted_.find_if([&](const Request& request) { return request.peer_ == source; });
}

}  // namespace railyard::mrail
