// What one rail has carried, so users, tools and tests can see where traffic went.
#pragma once

#include <cstdint>

namespace railyard::rail {

// Counted when an operation completes successfully (injects: when posted).
struct RailCounters {
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t writes = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t reads = 0;
  std::uint64_t bytes_read = 0;
  // Operations that completed with an error status.
  std::uint64_t errors = 0;
  // Posts the provider refused with FI_EAGAIN and the rail queued to retry.
  std::uint64_t deferred_posts = 0;
  // Times the endpoint was closed and opened again at the same address
  // (Rail::reset).
  std::uint64_t resets = 0;
  // Calls of progress() that left the completion queue of a peerless rail
  // unread (Rail::set_peerless).
  std::uint64_t peerless_polls_skipped = 0;
  // Completions the provider reported for an operation that had already
  // completed (Rail::finish drops them instead of counting it done twice).
  std::uint64_t stray_completions = 0;
};

}  // namespace railyard::rail
