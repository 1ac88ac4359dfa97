// Forming the job: the root admits one connection per rank, checking each
// hello, and sends the table once all are in; every other rank connects
// (retrying while the root is not up yet) and waits for that table.
#include <poll.h>

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "railyard/bootstrap/detail/root_state.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap::detail {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kHandshakeSlice{100};
constexpr milliseconds kFirstRetry{20};
constexpr milliseconds kLongestRetry{500};
// Refusals kept for the timeout message.
constexpr std::size_t kRefusalsShown = 5;

milliseconds left_until(Clock::time_point deadline) {
  return std::max(milliseconds(0), std::chrono::ceil<milliseconds>(deadline - Clock::now()));
}

}  // namespace

std::string rank_list(const std::vector<int>& ranks) {
  std::vector<std::string> names;
  names.reserve(ranks.size());
  for (const int rank : ranks) {
    names.push_back(std::to_string(rank));
  }
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", join_list(names, "and"));
}

void refuse(ControlLink& link, Refusal reason, const std::string& message) {
  log::warn("bootstrap: refused a connection from {}: {}", link.channel.peer(), message);
  send_one(link, RootMessage::kRefuse, encode(Refuse{reason, message}));
  (void)link.channel.close();
}

void RootState::host(std::span<const std::byte> descriptor) {
  rstream::Listener& server = *listener;
  const auto deadline = Clock::now() + options.timeout;
  descriptors.assign(static_cast<std::size_t>(size), {});
  descriptors[0].assign(descriptor.begin(), descriptor.end());
  links.resize(static_cast<std::size_t>(size));
  log::info("bootstrap: rank 0 is the root of a job of {} ranks, listening at {}", size,
            server.address().to_string());
  std::vector<std::unique_ptr<ControlLink>> pending;
  std::vector<std::string> refusals;
  std::size_t refused = 0;
  int admitted = 0;

  const auto check_hello = [&](ControlLink& link, const rstream::Frame& frame) {
    Hello hello;
    std::string error;
    if (frame.type != static_cast<std::uint16_t>(RootMessage::kHello)) {
      return std::pair(Refusal::kMalformed,
                       fmt::format("expected a hello first, got a frame of type {}", frame.type));
    }
    if (!decode(frame.payload, hello, error)) {
      return std::pair(Refusal::kMalformed, fmt::format("malformed hello: {}", error));
    }
    if (hello.version != kRootProtocolVersion) {
      return std::pair(Refusal::kVersion, fmt::format("bootstrap protocol version {}, expected {}",
                                                      hello.version, kRootProtocolVersion));
    }
    if (hello.key != options.job_key) {
      return std::pair(Refusal::kKey,
                       std::string("wrong job key (RAILYARD_JOB_KEY differs from the root's)"));
    }
    if (hello.size != static_cast<std::uint32_t>(size)) {
      return std::pair(Refusal::kSize, fmt::format("job size {} (rank {}), but the root's job "
                                                   "has {} ranks",
                                                   hello.size, hello.rank, size));
    }
    if (hello.rank == 0 || hello.rank >= static_cast<std::uint32_t>(size)) {
      return std::pair(Refusal::kRank, fmt::format("rank {}, expected 1 to {} (rank 0 is the root)",
                                                   hello.rank, size - 1));
    }
    const auto joining = static_cast<std::size_t>(hello.rank);
    if (links[joining]) {
      return std::pair(Refusal::kDuplicate,
                       fmt::format("rank {} already joined from {}", hello.rank,
                                   links[joining]->channel.peer()));
    }
    link.rank = static_cast<int>(hello.rank);
    descriptors[joining] = std::move(hello.descriptor);
    return std::pair(Refusal{}, std::string());
  };

  std::vector<pollfd> fds;
  while (admitted < size - 1) {
    if (Clock::now() >= deadline) {
      std::vector<int> missing;
      for (int other = 1; other < size; ++other) {
        if (!links[static_cast<std::size_t>(other)]) {
          missing.push_back(other);
        }
      }
      std::string message =
          fmt::format("bootstrap root at {}: {} of {} never arrived within {}", options.root,
                      rank_list(missing), size, describe_duration(options.timeout));
      if (refused > 0) {
        message += fmt::format(" ({} connection{} refused: {})", refused, refused == 1 ? "" : "s",
                               join_list(refusals, "and"));
      }
      const Blob gave_up =
          encode(Failed{static_cast<std::uint32_t>(missing.front()), FailureKind::kLost, message});
      for (auto& link : links) {
        if (link) {
          send_one(*link, RootMessage::kFailed, gave_up);
        }
      }
      throw TimeoutError(message);
    }
    while (auto channel = server.accept(milliseconds(0))) {
      auto link = std::make_unique<ControlLink>();
      link->channel = std::move(*channel);
      pending.push_back(std::move(link));
    }
    for (auto it = pending.begin(); it != pending.end();) {
      ControlLink& link = **it;
      rstream::Frame frame;
      const rstream::IoResult got = link.reader.read(link.channel, frame);
      if (got.would_block()) {
        ++it;
        continue;
      }
      if (!got.ok()) {
        log::debug("bootstrap: a connection from {} ended before its hello", link.channel.peer());
      } else if (auto [reason, why] = check_hello(link, frame); !why.empty()) {
        ++refused;
        if (refusals.size() < kRefusalsShown) {
          refusals.push_back(why);
        }
        refuse(link, reason, why);
      } else {
        log::debug("bootstrap: rank {} joined from {}", link.rank, link.channel.peer());
        links[static_cast<std::size_t>(link.rank)] = std::move(*it);
        ++admitted;
      }
      it = pending.erase(it);
    }
    if (admitted == size - 1) {
      break;  // complete: the table goes out now, not after another poll slice
    }
    // A rank that went away before the table may come back.
    for (auto& link : links) {
      if (!link) {
        continue;
      }
      rstream::Frame frame;
      const rstream::IoResult got = link->reader.read(link->channel, frame);
      if (!got.would_block()) {
        log::warn("bootstrap: rank {} ({}) left before the job was complete; waiting for it again",
                  link->rank, got.ok() ? "sent a frame before the table" : "connection closed");
        link.reset();
        --admitted;
      }
    }
    fds.clear();
    fds.push_back({server.fd(), POLLIN, 0});
    for (const auto& candidate : pending) {
      (void)candidate->channel.readiness();
      fds.push_back({candidate->channel.fd(), POLLIN, 0});
    }
    for (const auto& link : links) {
      if (link) {
        (void)link->channel.readiness();
        fds.push_back({link->channel.fd(), POLLIN, 0});
      }
    }
    const auto slice = std::min(kHandshakeSlice, left_until(deadline));
    (void)::poll(fds.data(), fds.size(), static_cast<int>(slice.count()));
  }
  // Connections still waiting for their turn are told, not dropped.
  for (auto& late : pending) {
    refuse(*late, Refusal::kComplete,
           fmt::format("the job is complete: all {} ranks had joined", size));
  }
  const Blob table = encode(Table{descriptors});
  for (auto& link : links) {
    if (link) {
      send_one(*link, RootMessage::kTable, table);
    }
  }
  log::info("bootstrap: all {} ranks joined the root at {}", size, options.root);
}

void RootState::join(std::span<const std::byte> descriptor) {
  const auto deadline = Clock::now() + options.timeout;
  auto link = std::make_unique<ControlLink>();
  link->rank = 0;
  milliseconds retry = kFirstRetry;
  std::string last_error;
  while (true) {
    rstream::ChannelOptions channel_options = options.channel;
    channel_options.connect_timeout =
        std::clamp(left_until(deadline), milliseconds(1), milliseconds(10'000));
    try {
      link->channel = rstream::Channel::connect(options.root, channel_options);
      break;
    } catch (const ConfigError&) {
      throw;
    } catch (const Error& error) {
      last_error = error.what();
    }
    if (left_until(deadline) <= retry) {
      throw TimeoutError(fmt::format(
          "rank {} could not connect to the bootstrap root (rank 0) at {} within {}: {}", rank,
          options.root, describe_duration(options.timeout), last_error));
    }
    std::this_thread::sleep_for(retry);
    retry = std::min(retry * 2, kLongestRetry);
  }
  send_one(*link, RootMessage::kHello,
           encode(Hello{kRootProtocolVersion, static_cast<std::uint32_t>(rank),
                        static_cast<std::uint32_t>(size), options.job_key,
                        Blob(descriptor.begin(), descriptor.end())}));
  // A connected rank waits a little longer than the root does, so that the
  // root's account of who is missing reaches it before its own timeout.
  const auto table_deadline =
      deadline + std::clamp(options.timeout / 10, milliseconds(500), milliseconds(5000));
  std::array<rstream::Channel*, 1> channels{&link->channel};
  while (true) {
    rstream::Frame frame;
    const rstream::IoResult got = link->reader.read(link->channel, frame);
    if (got.would_block()) {
      const auto left = left_until(table_deadline);
      if (left.count() == 0) {
        throw TimeoutError(fmt::format(
            "rank {} joined the bootstrap root at {}, but the job was not complete within {}", rank,
            options.root, describe_duration(options.timeout)));
      }
      (void)rstream::wait_any(channels, rstream::Interest::kRead, std::min(left, kHandshakeSlice));
      continue;
    }
    if (!got.ok()) {
      throw RemoteError(0,
                        fmt::format("rank {}: the bootstrap root at {} closed the connection "
                                    "before the job was complete: {}",
                                    rank, options.root,
                                    got.end_of_stream() ? "end of stream" : got.status.message()));
    }
    std::string error;
    const auto type = static_cast<RootMessage>(frame.type);
    if (type == RootMessage::kTable) {
      Table table;
      if (!decode(frame.payload, table, error) ||
          table.descriptors.size() != static_cast<std::size_t>(size)) {
        throw RemoteError(
            0, fmt::format("rank {}: malformed table from the bootstrap root at {}: "
                           "{}",
                           rank, options.root, error.empty() ? "wrong number of ranks" : error));
      }
      descriptors = std::move(table.descriptors);
      links.push_back(std::move(link));
      return;
    }
    if (type == RootMessage::kRefuse) {
      Refuse refusal;
      (void)decode(frame.payload, refusal, error);
      const std::string why =
          fmt::format("the bootstrap root at {} refused it: {}", options.root, refusal.message);
      switch (refusal.reason) {
        case Refusal::kKey:
          throw ConfigError("RAILYARD_JOB_KEY", fmt::format("<{} bytes>", options.job_key.size()),
                            why);
        case Refusal::kSize:
          throw ConfigError("job size", std::to_string(size), why);
        case Refusal::kRank:
        case Refusal::kDuplicate:
        case Refusal::kComplete:
          throw ConfigError("rank", std::to_string(rank), why);
        default:
          throw ConfigError("bootstrap protocol version", std::to_string(kRootProtocolVersion),
                            why);
      }
    }
    if (type == RootMessage::kFailed) {
      Failed failed;
      (void)decode(frame.payload, failed, error);
      throw TimeoutError(fmt::format("rank {}: {}", rank, failed.reason));
    }
    throw RemoteError(0, fmt::format("rank {}: the bootstrap root at {} sent a {} message before "
                                     "the table",
                                     rank, options.root, to_string(type)));
  }
}

}  // namespace railyard::bootstrap::detail
