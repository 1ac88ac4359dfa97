// A thread that progresses idle stream channels now and then, so that a
// process busy elsewhere still answers its peers' keepalive probes and
// notices a dead peer. Needed because providers such as tcp move data (and
// acknowledge delivery) only when the receiving process calls into
// libfabric. One per process while any channel with
// ChannelOptions::background_progress exists; it skips a channel whose user
// is inside a call, since that call progresses it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace railyard::rstream::detail {

class ChannelCore;

class BackgroundProgress {
 public:
  // The process's instance, started on first use and stopped when the last
  // channel holding it is gone.
  [[nodiscard]] static std::shared_ptr<BackgroundProgress> shared();

  BackgroundProgress();
  ~BackgroundProgress();
  BackgroundProgress(const BackgroundProgress&) = delete;
  BackgroundProgress& operator=(const BackgroundProgress&) = delete;
  BackgroundProgress(BackgroundProgress&&) = delete;
  BackgroundProgress& operator=(BackgroundProgress&&) = delete;

  // `core` is progressed at least every `period` until removed. remove()
  // returns once no turn is using `core`.
  void add(ChannelCore* core, std::chrono::milliseconds period);
  void remove(ChannelCore* core);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<ChannelCore*> cores_;
  std::chrono::milliseconds period_{1000};
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace railyard::rstream::detail
