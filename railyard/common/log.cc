#include "railyard/common/detail/log.h"

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::log {
namespace {

constexpr const char* kVariable = "RAILYARD_LOG";
constexpr std::array<const char*, 6> kNames{"trace", "debug", "info", "warn", "error", "off"};

std::optional<Level> parse_level(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (iequals(text, kNames[i])) {
      return static_cast<Level>(i);
    }
  }
  return std::nullopt;
}

std::string expected_levels() { return "expected one of error, warn, info, debug, trace or off"; }

// The logger is process-wide on purpose: RAILYARD_LOG is a process-wide
// setting, and one sink keeps lines from different objects from interleaving.
//
// Its lock is ours rather than the sink's so that fork() can hold it: a child
// forked while another thread was writing a line would otherwise inherit the
// lock taken, and hang on its first line.
class Logger {
 public:
  Logger() {
    const auto text = env::get(kVariable);
    if (text) {
      if (auto parsed = parse_level(*text)) {
        level_.store(*parsed);
      }
    }
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
    logger_ = std::make_shared<spdlog::logger>("railyard", std::move(sink));
    std::array<char, 256> host{};
    if (gethostname(host.data(), host.size() - 1) != 0) {
      host[0] = '\0';
    }
    logger_->set_pattern(fmt::format("{}:%P:%t railyard %l: %v", host.data()));
    logger_->set_level(spdlog::level::trace);  // filtering happens in enabled()
    logger_->flush_on(spdlog::level::trace);
    // A level it cannot read is refused where the library starts
    // (check_environment); here it logs at warn, quietly, until then.
    // Registered before anything that logs while holding a lock of its own
    // can register (it logs first), and pthread_atfork runs prepare handlers
    // in reverse order: such outer locks are taken before this one, in the
    // order threads take them.
    (void)pthread_atfork([] { instance().lock(); }, [] { instance().unlock(); },
                         [] { instance().unlock(); });
  }

  static Logger& instance();
  std::atomic<Level>& level() { return level_; }
  void write(spdlog::level::level_enum level, std::string_view message) {
    const std::scoped_lock lock(mutex_);
    logger_->log(level, message);
  }

 private:
  // Only for the fork handlers; everything else scopes the lock.
  void lock() { mutex_.lock(); }
  void unlock() { mutex_.unlock(); }

  std::mutex mutex_;
  std::atomic<Level> level_{Level::kWarn};
  std::shared_ptr<spdlog::logger> logger_;
};

Logger& Logger::instance() {
  static Logger logger;
  return logger;
}

Logger& instance() { return Logger::instance(); }

}  // namespace

Level level() noexcept { return instance().level().load(std::memory_order_relaxed); }

void set_level(Level lvl) noexcept { instance().level().store(lvl, std::memory_order_relaxed); }

bool enabled(Level lvl) noexcept {
  return lvl != Level::kOff && lvl >= instance().level().load(std::memory_order_relaxed);
}

void check_environment() {
  const auto text = env::get(kVariable);
  if (text && !parse_level(*text)) {
    throw ConfigError(kVariable, *text, expected_levels());
  }
}

void emit(Level lvl, std::string_view message) {
  static constexpr std::array<spdlog::level::level_enum, 6> kSpd{
      spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
      spdlog::level::warn,  spdlog::level::err,   spdlog::level::off};
  instance().write(kSpd.at(static_cast<std::size_t>(lvl)), message);
}

}  // namespace railyard::log
