// A multi-rail endpoint meeting a forked peer over the ForkedPeer pipe: each
// side sends its endpoint's address and inserts the other's.
#pragma once

#include <chrono>

#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::testing {

inline constexpr std::chrono::seconds kMeetTimeout{30};

// The child's side: returns the parent's id.
inline mrail::PeerId meet_parent(mrail::Endpoint& endpoint, tools::Pipe& pipe) {
  pipe.send(endpoint.address());
  return endpoint.insert_peer(pipe.receive(kMeetTimeout));
}

// The parent's side: returns the child's id.
inline mrail::PeerId meet_child(mrail::Endpoint& endpoint, tools::ForkedPeer& child) {
  const mrail::PeerId peer = endpoint.insert_peer(child.pipe().receive(kMeetTimeout));
  child.pipe().send(endpoint.address());
  return peer;
}

}  // namespace railyard::testing
