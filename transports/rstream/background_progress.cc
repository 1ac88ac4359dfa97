#include "railyard/transports/rstream/detail/background_progress.h"

#include <algorithm>

#include "railyard/common/detail/log.h"
#include "railyard/transports/rstream/detail/channel_core.h"

namespace railyard::rstream::detail {

std::shared_ptr<BackgroundProgress> BackgroundProgress::shared() {
  static std::mutex mutex;
  static std::weak_ptr<BackgroundProgress> instance;
  const std::scoped_lock lock(mutex);
  auto current = instance.lock();
  if (!current) {
    current = std::make_shared<BackgroundProgress>();
    instance = current;
  }
  return current;
}

BackgroundProgress::BackgroundProgress() : thread_([this] { run(); }) {
  log::debug("rstream background progress thread started");
}

BackgroundProgress::~BackgroundProgress() {
  {
    const std::scoped_lock lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  log::debug("rstream background progress thread stopped");
}

void BackgroundProgress::add(ChannelCore* core, std::chrono::milliseconds period) {
  {
    const std::scoped_lock lock(mutex_);
    cores_.push_back(core);
    period_ = std::min(period_, period);
  }
  wake_.notify_all();  // a shorter period applies from now
}

void BackgroundProgress::remove(ChannelCore* core) {
  // Turns run under mutex_, so once it is ours no turn touches `core`.
  const std::scoped_lock lock(mutex_);
  std::erase(cores_, core);
}

void BackgroundProgress::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto period = period_;
    wake_.wait_for(lock, period, [&] { return stopping_ || period_ < period; });
    if (stopping_) {
      break;
    }
    for (ChannelCore* core : cores_) {
      core->background_turn();
    }
  }
}

}  // namespace railyard::rstream::detail
