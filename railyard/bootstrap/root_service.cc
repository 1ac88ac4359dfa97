// The control plane's service thread: reads every frame its links bring,
// updates the shared state, answers store requests and collectives at the
// root, and turns a broken connection into the job's failure.
#include <poll.h>
#include <sys/eventfd.h>

#include <fmt/format.h>

#include <array>

#include "railyard/bootstrap/detail/root_state.h"
#include "railyard/common/detail/errno_text.h"
#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::bootstrap::detail {
namespace {

// How often the loop rechecks its links even when no descriptor fired, as
// the channels ask of anyone polling their descriptors.
constexpr int kPollSliceMs = 200;

template <typename Message>
Outgoing frame_to(ControlLink& link, RootMessage type, const Message& message) {
  return {&link, type, encode(message)};
}

}  // namespace

void send_one(ControlLink& link, RootMessage type, std::span<const std::byte> payload) noexcept {
  try {
    const std::scoped_lock lock(link.send_mutex);
    const Status sent = rstream::send_frame(link.channel, static_cast<std::uint16_t>(type), payload,
                                            kMaxControlFrame);
    if (!sent.ok()) {
      log::debug("bootstrap: {} to rank {} not sent: {}", to_string(type), link.rank,
                 sent.message());
    }
  } catch (const std::exception& error) {
    log::debug("bootstrap: {} to rank {} not sent: {}", to_string(type), link.rank, error.what());
  }
}

void send_all(std::vector<Outgoing>& out) noexcept {
  for (Outgoing& frame : out) {
    send_one(*frame.link, frame.type, frame.payload);
  }
  out.clear();
}

void RootState::start_service() {
  wake = UniqueFd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake) {
    throw Error("eventfd", errno, fmt::format("bootstrap service wake-up: {}", errno_text(errno)));
  }
  service = std::thread([this] { serve(); });
}

void RootState::wake_service() const noexcept {
  const std::uint64_t one = 1;
  if (wake) {
    (void)::write(wake.get(), &one, sizeof(one));
  }
}

void RootState::stop_service() noexcept {
  {
    const std::scoped_lock lock(mutex);
    stopping = true;
  }
  wake_service();
  if (service.joinable()) {
    service.join();
  }
}

bool RootState::drain(ControlLink& link) {
  while (true) {
    rstream::Frame frame;
    const rstream::IoResult got = link.reader.read(link.channel, frame);
    if (got.would_block()) {
      return true;
    }
    std::vector<Outgoing> out;
    bool open = true;
    {
      const std::scoped_lock lock(mutex);
      if (got.ok()) {
        handle(link, frame, out);
        open = link.open;
      } else {
        on_closed(link, got.end_of_stream() ? "closed the connection" : got.status.message(), out);
        open = false;
      }
    }
    send_all(out);
    if (!open) {
      return false;
    }
  }
}

void RootState::refuse_latecomers() {
  while (auto channel = listener->accept(std::chrono::milliseconds(0))) {
    ControlLink late;
    late.channel = std::move(*channel);
    refuse(late, Refusal::kComplete,
           fmt::format("the job is complete: all {} ranks had joined", size));
  }
}

void RootState::serve() noexcept {
  std::vector<pollfd> fds;
  while (true) {
    fds.clear();
    fds.push_back({wake.get(), POLLIN, 0});
    if (listener) {
      try {
        refuse_latecomers();
      } catch (const std::exception& error) {
        log::warn("bootstrap: the root stops refusing late connections: {}", error.what());
        listener.reset();
      }
    }
    if (listener) {
      fds.push_back({listener->fd(), POLLIN, 0});
    }
    bool ready = false;
    for (auto& link : links) {
      if (!link) {
        continue;
      }
      {
        const std::scoped_lock lock(mutex);
        if (!link->open) {
          continue;
        }
      }
      if (!drain(*link)) {
        continue;
      }
      // Arms the descriptor, or says something came in meanwhile.
      const rstream::Readiness state = link->channel.readiness();
      ready = ready || state.readable || state.error || state.hangup;
      fds.push_back({link->channel.fd(), POLLIN, 0});
    }
    {
      const std::scoped_lock lock(mutex);
      if (stopping) {
        return;
      }
    }
    if (ready) {
      continue;
    }
    (void)::poll(fds.data(), fds.size(), kPollSliceMs);
    std::uint64_t drained = 0;
    (void)::read(wake.get(), &drained, sizeof(drained));
  }
}

void RootState::handle(ControlLink& link, const rstream::Frame& frame, std::vector<Outgoing>& out) {
  const auto type = static_cast<RootMessage>(frame.type);
  std::string error;
  const auto malformed = [&] {
    on_closed(link,
              fmt::format("sent a malformed {} message ({})", to_string(type),
                          error.empty() ? "unexpected here" : error),
              out);
  };
  switch (type) {
    case RootMessage::kSet: {
      SetKey message;
      if (!is_root() || !decode(frame.payload, message, error)) {
        return malformed();
      }
      store_value(message.key, std::move(message.value), out);
      return;
    }
    case RootMessage::kGet: {
      GetKey message;
      if (!is_root() || !decode(frame.payload, message, error)) {
        return malformed();
      }
      if (const auto found = values.find(message.key); found != values.end()) {
        out.push_back(frame_to(link, RootMessage::kValue, Value{message.id, found->second}));
      } else {
        waiting_gets.emplace(message.key, std::pair(&link, message.id));
      }
      return;
    }
    case RootMessage::kValue: {
      Value message;
      if (is_root() || !decode(frame.payload, message, error)) {
        return malformed();
      }
      // An answer nobody waits for any more (the get timed out) is dropped.
      if (const auto waiting = answers.find(message.id); waiting != answers.end()) {
        waiting->second = std::move(message.value);
        changed.notify_all();
      }
      return;
    }
    case RootMessage::kGather: {
      Gather message;
      if (!is_root() || !decode(frame.payload, message, error)) {
        return malformed();
      }
      contribute(link.rank, std::move(message), out);
      return;
    }
    case RootMessage::kGathered: {
      Gathered message;
      if (is_root() || !decode(frame.payload, message, error)) {
        return malformed();
      }
      results[message.seq] = std::move(message.blobs);
      changed.notify_all();
      return;
    }
    case RootMessage::kAbort: {
      Abort message;
      if (!decode(frame.payload, message, error)) {
        return malformed();
      }
      fail(JobFailure::abort_by(static_cast<int>(message.rank), message.code, message.reason), out);
      return;
    }
    case RootMessage::kFailed: {
      Failed message;
      if (is_root() || !decode(frame.payload, message, error)) {
        return malformed();
      }
      fail({message.kind == FailureKind::kMisuse ? JobFailure::Kind::kMisuse
                                                 : JobFailure::Kind::kLost,
            static_cast<int>(message.rank),
            0,
            message.reason,
            {}},
           out);
      return;
    }
    case RootMessage::kBye:
      link.said_bye = true;
      return;
    default:
      return malformed();
  }
}

void RootState::on_closed(ControlLink& link, const std::string& why, std::vector<Outgoing>& out) {
  if (!link.open) {
    return;
  }
  link.open = false;
  changed.notify_all();
  if (link.said_bye || stopping) {
    log::debug("bootstrap: rank {} left ({})", link.rank, why);
    return;
  }
  const std::string message =
      is_root()
          ? fmt::format("rank {} lost its bootstrap connection to the root: {}", link.rank, why)
          : fmt::format(
                "rank {} lost its bootstrap connection to the root (rank 0) at {}: "
                "{}",
                rank, options.root, why);
  fail({JobFailure::Kind::kLost, link.rank, 0, message, {}}, out);
}

void RootState::fail(const JobFailure& what, std::vector<Outgoing>& out) {
  if (failure) {
    return;
  }
  failure = what;
  log::warn("bootstrap: {}", what.message);
  changed.notify_all();
  if (!is_root()) {
    return;
  }
  // A misusing rank needs telling too; an aborting or lost one does not.
  const bool tell_culprit = what.kind == JobFailure::Kind::kMisuse;
  const bool aborted = what.kind == JobFailure::Kind::kAborted;
  const Blob encoded =
      aborted
          ? encode(Abort{static_cast<std::uint32_t>(what.rank), what.code, what.reason})
          : encode(Failed{static_cast<std::uint32_t>(what.rank),
                          tell_culprit ? FailureKind::kMisuse : FailureKind::kLost, what.message});
  for (auto& link : links) {
    if (!link || !link->open || (link->rank == what.rank && !tell_culprit)) {
      continue;
    }
    out.push_back({link.get(), aborted ? RootMessage::kAbort : RootMessage::kFailed, encoded});
  }
}

void RootState::contribute(int from, Gather gather, std::vector<Outgoing>& out) {
  const auto describe = [this](std::uint32_t root) {
    return root == kEveryRank ? std::string("allgather")
           : root < static_cast<std::uint32_t>(size)
               ? fmt::format("broadcast from rank {}", root)
               : fmt::format("broadcast from rank {} (out of range)", root);
  };
  auto [it, fresh] = rounds.try_emplace(gather.seq);
  Round& round = it->second;
  if (fresh) {
    round.root = gather.root;
    round.first_rank = from;
    round.blobs.resize(static_cast<std::size_t>(size));
  }
  const bool root_in_range =
      gather.root == kEveryRank || gather.root < static_cast<std::uint32_t>(size);
  if (!root_in_range || round.root != gather.root || round.blobs[static_cast<std::size_t>(from)]) {
    fail({JobFailure::Kind::kMisuse,
          from,
          0,
          fmt::format("bootstrap collective #{}: rank {} called {}, but rank {} called {} (every "
                      "rank must call the same collectives in the same order)",
                      gather.seq, from, describe(gather.root), round.first_rank,
                      describe(round.root)),
          {}},
         out);
    return;
  }
  round.blobs[static_cast<std::size_t>(from)] = std::move(gather.blob);
  if (++round.arrived < size) {
    return;
  }
  std::vector<Blob> result;
  if (round.root == kEveryRank) {
    std::size_t total = 0;
    for (auto& blob : round.blobs) {
      total += blob->size() + 4;
      result.push_back(std::move(*blob));
    }
    if (total > kMaxControlFrame - 16) {
      fail({JobFailure::Kind::kMisuse,
            0,
            0,
            fmt::format("bootstrap allgather #{} gathers {} bytes, more than the control plane's "
                        "{} MiB",
                        gather.seq, total, kMaxControlFrame >> 20),
            {}},
           out);
      return;
    }
  } else {
    result.push_back(std::move(*round.blobs[round.root]));
  }
  rounds.erase(it);
  Gathered gathered{gather.seq, std::move(result)};
  const Blob encoded = encode(gathered);
  for (auto& link : links) {
    if (link && link->open) {
      out.push_back({link.get(), RootMessage::kGathered, encoded});
    }
  }
  results[gathered.seq] = std::move(gathered.blobs);
  changed.notify_all();
}

void RootState::store_value(const std::string& key, Blob value, std::vector<Outgoing>& out) {
  auto [first, last] = waiting_gets.equal_range(key);
  for (auto it = first; it != last; ++it) {
    out.push_back(
        frame_to(*it->second.first, RootMessage::kValue, Value{it->second.second, value}));
  }
  waiting_gets.erase(first, last);
  values[key] = std::move(value);
  changed.notify_all();
}

}  // namespace railyard::bootstrap::detail
