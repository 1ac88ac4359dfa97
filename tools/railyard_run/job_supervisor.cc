#include "job_supervisor.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>

#include "line_prefixer.h"
#include "railyard/common/detail/errno_text.h"
#include "railyard/common/error.h"
#include "rank_process.h"

namespace railyard::run {
namespace {

using Clock = std::chrono::steady_clock;

// How long output still held open after every rank ended (by something a
// rank started and detached from its group) is read before giving up on it.
constexpr std::chrono::milliseconds kDrainLimit{1000};
// After a rank fails, how long the others have to end by themselves: a rank
// that failed tells the rest through the control plane, and each says
// what it saw (whom it waited for) before it leaves.
constexpr std::chrono::milliseconds kReportTime{1000};

template <typename... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
  fmt::print(stderr, "railyard-run: {}\n", fmt::format(format, std::forward<Args>(args)...));
}

// Blocks the signals the launcher handles and reads them from a signalfd,
// so they arrive in the poll loop rather than interrupting it; the old mask
// is restored on the way out and given to the ranks.
class SignalRoute {
 public:
  SignalRoute() {
    sigemptyset(&handled_);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) {
      sigaddset(&handled_, signal);
    }
    if (const int rc = ::pthread_sigmask(SIG_BLOCK, &handled_, &previous_); rc != 0) {
      throw Error("pthread_sigmask", rc, "pthread_sigmask failed: " + errno_text(rc));
    }
    fd_ = UniqueFd(::signalfd(-1, &handled_, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_) {
      const int error = errno;
      (void)::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
      throw Error("signalfd", error, "signalfd failed: " + errno_text(error));
    }
  }
  ~SignalRoute() { (void)::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalRoute(const SignalRoute&) = delete;
  SignalRoute& operator=(const SignalRoute&) = delete;
  SignalRoute(SignalRoute&&) = delete;
  SignalRoute& operator=(SignalRoute&&) = delete;

  [[nodiscard]] int fd() const noexcept { return fd_.get(); }
  [[nodiscard]] const sigset_t& previous() const noexcept { return previous_; }

  // The next pending signal, 0 when none.
  [[nodiscard]] int next() const noexcept {
    signalfd_siginfo info{};
    if (::read(fd_.get(), &info, sizeof(info)) != static_cast<ssize_t>(sizeof(info))) {
      return 0;
    }
    return static_cast<int>(info.ssi_signo);
  }

 private:
  sigset_t handled_{};
  sigset_t previous_{};
  UniqueFd fd_;
};

struct RankOutput {
  LinePrefixer out;
  LinePrefixer err;
};

class Supervisor {
 public:
  Supervisor(const LaunchOptions& options, const std::vector<RankLaunch>& plan)
      : options_(options) {
    for (const RankLaunch& launch : plan) {
      // A rank that cannot start throws: the destructors stop those started.
      ranks_.push_back(std::make_unique<RankProcess>(launch, options.command, signals_.previous()));
      const std::string prefix = fmt::format("[{}] ", launch.rank);
      outputs_.push_back(
          {LinePrefixer(prefix, STDOUT_FILENO), LinePrefixer(prefix, STDERR_FILENO)});
    }
    if (options.timeout) {
      deadline_ = Clock::now() + *options.timeout;
    }
  }

  int run() {
    while (true) {
      reap();
      const auto now = Clock::now();
      if (report_until_ && now >= *report_until_ && !stopping_) {
        if (running() > 0) {
          say("stopping the other {} rank(s)", running());
        }
        stop(*first_failure_);
      }
      if (deadline_ && now >= *deadline_ && !stopping_) {
        say("the job ran past its --timeout of {} ms; stopping {} rank(s)",
            options_.timeout->count(), running());
        stop(kTimedOutStatus);
      }
      if (stopping_ && !killed_ && now >= kill_at_) {
        if (running() > 0) {
          say("{} rank(s) still running {} ms after SIGTERM; sending SIGKILL", running(),
              options_.grace.count());
        }
        kill_all();
      }
      if (running() == 0) {
        if (!ended_at_) {
          ended_at_ = now;
          // What the ranks started in their groups goes with them.
          for (const auto& rank : ranks_) {
            rank->signal_group(SIGKILL);
          }
        }
        if (open_outputs() == 0 || now - *ended_at_ >= kDrainLimit) {
          break;
        }
      }
      wait_for_events(next_wakeup(now));
    }
    finish_outputs();
    return first_failure_ ? *first_failure_ : stop_status_;
  }

 private:
  [[nodiscard]] std::size_t running() const {
    return static_cast<std::size_t>(std::count_if(
        ranks_.begin(), ranks_.end(), [](const auto& rank) { return rank->running(); }));
  }

  [[nodiscard]] std::size_t open_outputs() const {
    std::size_t open = 0;
    for (const auto& rank : ranks_) {
      open += static_cast<std::size_t>(static_cast<bool>(rank->output())) +
              static_cast<std::size_t>(static_cast<bool>(rank->errors()));
    }
    return open;
  }

  void reap() {
    for (const auto& rank : ranks_) {
      if (!rank->running() || !rank->reap()) {
        continue;
      }
      const int status = *rank->status();
      if (status == 0 || stopping_ || first_failure_) {
        continue;
      }
      first_failure_ = status;
      say("rank {} {}; the other {} rank(s) have {} ms to end by themselves", rank->rank(),
          rank->how_it_ended(), running(), kReportTime.count());
      report_until_ = Clock::now() + kReportTime;
    }
  }

  void stop(int status) {
    if (stopping_) {
      return;
    }
    stopping_ = true;
    stop_status_ = status;
    kill_at_ = Clock::now() + options_.grace;
    for (const auto& rank : ranks_) {
      if (rank->running()) {
        rank->signal_group(SIGTERM);
        // A stopped rank (a debugger, kill -STOP) acts on it only once
        // continued.
        rank->signal_group(SIGCONT);
      }
    }
  }

  void kill_all() {
    killed_ = true;
    for (const auto& rank : ranks_) {
      if (rank->running()) {
        rank->signal_group(SIGKILL);
      }
    }
  }

  [[nodiscard]] int next_wakeup(Clock::time_point now) const {
    std::optional<Clock::time_point> at;
    const auto earliest = [&at](Clock::time_point when) { at = at ? std::min(*at, when) : when; };
    if (deadline_ && !stopping_) {
      earliest(*deadline_);
    }
    if (report_until_ && !stopping_) {
      earliest(*report_until_);
    }
    if (stopping_ && !killed_) {
      earliest(kill_at_);
    }
    if (ended_at_) {
      earliest(*ended_at_ + kDrainLimit);
    }
    if (!at) {
      return -1;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*at - now).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
  }

  void wait_for_events(int timeout_ms) {
    std::vector<pollfd> fds{{.fd = signals_.fd(), .events = POLLIN, .revents = 0}};
    std::vector<UniqueFd*> owners{nullptr};
    std::vector<LinePrefixer*> sinks{nullptr};
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
      for (auto [fd, sink] : {std::pair{&ranks_[i]->output(), &outputs_[i].out},
                              std::pair{&ranks_[i]->errors(), &outputs_[i].err}}) {
        if (*fd) {
          fds.push_back({.fd = fd->get(), .events = POLLIN, .revents = 0});
          owners.push_back(fd);
          sinks.push_back(sink);
        }
      }
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      return;  // EINTR: the loop looks again
    }
    if (fds[0].revents != 0) {
      handle_signals();
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents != 0) {
        forward(*owners[i], *sinks[i]);
      }
    }
  }

  void handle_signals() {
    for (int signal = signals_.next(); signal != 0; signal = signals_.next()) {
      if (signal == SIGCHLD) {
        continue;  // reaped at the top of the loop
      }
      if (stopping_ && signal == SIGINT) {
        say("interrupted again; sending SIGKILL to {} rank(s)", running());
        kill_all();
        continue;
      }
      say("{}; stopping {} rank(s)", ::sigdescr_np(signal), running());
      stop(128 + signal);
    }
  }

  static void forward(UniqueFd& fd, LinePrefixer& sink) {
    std::array<char, 65536> buffer{};
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got > 0) {
      sink.feed(std::span<const char>(buffer.data(), static_cast<std::size_t>(got)));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      sink.finish();
      fd.reset();
    }
  }

  void finish_outputs() {
    for (auto& output : outputs_) {
      output.out.finish();
      output.err.finish();
    }
  }

  const LaunchOptions& options_;
  SignalRoute signals_;  // before the ranks: they are started with its mask
  std::vector<std::unique_ptr<RankProcess>> ranks_;
  std::vector<RankOutput> outputs_;
  std::optional<Clock::time_point> deadline_;
  bool stopping_ = false;
  bool killed_ = false;
  Clock::time_point kill_at_{};
  std::optional<Clock::time_point> ended_at_;
  std::optional<int> first_failure_;
  std::optional<Clock::time_point> report_until_;  // set by the first failure
  int stop_status_ = 0;
};

}  // namespace

int run_job(const LaunchOptions& options, const std::vector<RankLaunch>& plan) {
  Supervisor supervisor(options, plan);
  return supervisor.run();
}

}  // namespace railyard::run
