// The optional progress thread (RAILYARD_PROGRESS_THREAD=1): it progresses
// the endpoint all the time, so transfers move on while every thread of the
// program computes. It sleeps on the rails between completions and lets go
// of the endpoint while it sleeps (see ProgressLock), so it costs no core
// while nothing arrives and never holds up a thread that posts.
#pragma once

#include <atomic>
#include <thread>

#include "railyard/mrail/endpoint.h"

namespace railyard::comm::detail {

class ProgressThread {
 public:
  // Starts the thread; throws std::system_error when it cannot.
  explicit ProgressThread(mrail::Endpoint& endpoint);
  // Stops the thread and waits for it.
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  ProgressThread(ProgressThread&&) = delete;
  ProgressThread& operator=(ProgressThread&&) = delete;

 private:
  void run() noexcept;

  mrail::Endpoint& endpoint_;
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: it starts once the rest is in place
};

}  // namespace railyard::comm::detail
