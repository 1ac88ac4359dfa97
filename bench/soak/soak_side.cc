#include "soak_side.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <thread>

#include "message_plan.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::soak {
namespace {

using Clock = std::chrono::steady_clock;
using mrail::Endpoint;
using mrail::PeerId;
using mrail::Request;

constexpr auto kReportEvery = std::chrono::seconds(5);

// How many of a direction's first `messages` go on each stream.
std::array<std::uint64_t, kStreams> stream_totals(const MessagePlan& plan, std::uint64_t messages) {
  std::array<std::uint64_t, kStreams> totals{};
  for (std::uint64_t i = 0; i < messages; ++i) {
    ++totals[static_cast<std::size_t>(plan.stream_of(i))];
  }
  return totals;
}

const char* name_of(Stream stream) { return stream == Stream::kTagged ? "tagged" : "untagged"; }

class Side {
 public:
  Side(const SideOptions& options, const tools::Pipe& peer)
      : options_(options),
        out_(options.seed, options.direction, options.max_size),
        in_(options.seed, 1 - options.direction, options.max_size),
        endpoint_(endpoint_options(options)),
        expected_(stream_totals(in_, options.messages)) {
    // Host a speaks first.
    if (options.direction == 0) {
      peer.send(endpoint_.address());
      peer_ = endpoint_.insert_peer(peer.receive(std::chrono::seconds(60)));
    } else {
      peer_ = endpoint_.insert_peer(peer.receive(std::chrono::seconds(60)));
      peer.send(endpoint_.address());
    }
    for (auto& slots : sends_) {
      slots = std::vector<SendSlot>(options.window);
    }
    for (auto& slots : receives_) {
      slots = std::vector<ReceiveSlot>(options.window);
    }
  }

  void run() {
    const auto start = Clock::now();
    last_completion_ = start;
    auto next_report = start + kReportEvery;
    while (!through()) {
      post();
      (void)endpoint_.progress_until([&] { return any_done(); }, std::chrono::milliseconds(100));
      const std::size_t completed = reap();
      const auto now = Clock::now();
      if (completed > 0) {
        last_completion_ = now;
      } else if (now - last_completion_ > options_.stall_timeout) {
        note(
            fmt::format("nothing completed for {} s: {} of {} sent, {} of {} received, "
                        "{} sends and {} receives waiting",
                        options_.stall_timeout.count(), report_.sent, options_.messages,
                        report_.received, options_.messages, busy_sends_, busy_receives_));
        break;
      }
      if (now >= next_report) {
        next_report = now + kReportEvery;
        print_progress(now - start);
      }
    }
    report_.finished = through();
    report_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }

  // Keeps answering the peer (acknowledgements, reads of our rendezvous
  // sends already complete here) until it says it is through too.
  void linger_until(const std::atomic<bool>& peer_through) {
    const auto deadline = Clock::now() + options_.stall_timeout;
    while (!peer_through.load() && Clock::now() < deadline) {
      (void)endpoint_.progress_until([&] { return peer_through.load(); },
                                     std::chrono::milliseconds(100));
    }
    const mrail::EndpointCounters counters = endpoint_.counters();
    report_.duplicates_dropped = counters.duplicates_dropped;
    for (const auto& path : counters.paths) {
      report_.path_downs += path.health.downs;
      report_.path_ups += path.health.ups;
      report_.messages_resent += path.health.messages_resent;
      report_.bytes_resent += path.health.bytes_resent;
    }
    for (const auto& rail : counters.rails) {
      report_.rail_resets += rail.rail.resets;
    }
  }

  [[nodiscard]] const SideReport& report() const { return report_; }

 private:
  // A posted request stays `busy` until reap() has accounted for it.
  struct SendSlot {
    Request request;
    bool busy = false;
    std::size_t size = 0;
  };
  struct ReceiveSlot {
    Request request;
    bool busy = false;
    MessageSpec spec;
    std::vector<std::byte> buffer;
  };

  static mrail::Options endpoint_options(const SideOptions& options) {
    mrail::Options out = mrail::Options::from_environment();
    out.rails = options.rails;
    return out;
  }

  [[nodiscard]] bool through() const {
    return next_index_ == options_.messages && busy_sends_ == 0 && busy_receives_ == 0 &&
           next_seq_in_ == expected_;
  }

  // Posts sends in message order while the next one's stream has a free
  // slot, and receives in each stream's order while it has one.
  void post() {
    while (next_index_ < options_.messages) {
      const Stream stream = out_.stream_of(next_index_);
      const auto s = static_cast<std::size_t>(stream);
      SendSlot* slot = nullptr;
      for (auto& candidate : sends_[s]) {
        if (!candidate.busy) {
          slot = &candidate;
          break;
        }
      }
      if (slot == nullptr) {
        break;  // in order: the next message waits for its stream
      }
      const MessageSpec spec = out_.spec(stream, next_seq_out_[s]++);
      const auto bytes = out_.bytes(spec);
      const Status posted =
          stream == Stream::kTagged
              ? endpoint_.send(slot->request, peer_, bytes.data(), bytes.size(), spec.tag)
              : endpoint_.send_untagged(slot->request, peer_, bytes.data(), bytes.size());
      ++next_index_;
      if (!posted.ok()) {
        note(fmt::format("send {} of the {} stream refused: {}", spec.seq, name_of(stream),
                         posted.to_string()));
        ++report_.failed;
        continue;
      }
      slot->busy = true;
      slot->size = spec.size;
      ++busy_sends_;
    }
    for (std::size_t s = 0; s < kStreams; ++s) {
      const auto stream = static_cast<Stream>(s);
      for (auto& slot : receives_[s]) {
        if (slot.busy || next_seq_in_[s] == expected_[s]) {
          continue;
        }
        slot.spec = in_.spec(stream, next_seq_in_[s]++);
        // Room for a longer message than expected, so a wrong one shows as
        // itself rather than as a truncation.
        slot.buffer.resize(slot.spec.size + 64);
        // Wildcards by bits of the message's own draw: both kinds of
        // receive, in any mix, must see the stream in order.
        const std::uint64_t draw = slot.spec.offset;
        const PeerId source = (draw & 1) != 0 ? mrail::kAnySource : peer_;
        const bool any_tag = stream == Stream::kTagged && (draw & 2) != 0;
        report_.wildcard_receives += (source == mrail::kAnySource || any_tag) ? 1 : 0;
        const Status posted =
            stream == Stream::kTagged
                ? endpoint_.recv(slot.request, source, slot.buffer.data(), slot.buffer.size(),
                                 slot.spec.tag, any_tag ? mrail::kAnyTag : 0)
                : endpoint_.recv_untagged(slot.request, source, slot.buffer.data(),
                                          slot.buffer.size());
        if (!posted.ok()) {
          note(fmt::format("receive {} of the {} stream refused: {}", slot.spec.seq,
                           name_of(stream), posted.to_string()));
          ++report_.failed;
          continue;
        }
        slot.busy = true;
        ++busy_receives_;
      }
    }
  }

  [[nodiscard]] bool any_done() const {
    for (std::size_t s = 0; s < kStreams; ++s) {
      for (const auto& slot : sends_[s]) {
        if (slot.busy && slot.request.done()) {
          return true;
        }
      }
      for (const auto& slot : receives_[s]) {
        if (slot.busy && slot.request.done()) {
          return true;
        }
      }
    }
    return false;
  }

  // Accounts for every completed request; returns how many there were.
  std::size_t reap() {
    std::size_t completed = 0;
    for (std::size_t s = 0; s < kStreams; ++s) {
      for (auto& slot : sends_[s]) {
        if (!slot.busy || !slot.request.done()) {
          continue;
        }
        slot.busy = false;
        --busy_sends_;
        ++completed;
        if (slot.request.status().ok()) {
          ++report_.sent;
          report_.bytes_sent += slot.size;
        } else {
          note("a send failed: " + slot.request.status().to_string());
          ++report_.failed;
        }
      }
      for (auto& slot : receives_[s]) {
        if (!slot.busy || !slot.request.done()) {
          continue;
        }
        slot.busy = false;
        --busy_receives_;
        ++completed;
        check(slot);
      }
    }
    return completed;
  }

  void check(const ReceiveSlot& slot) {
    const Request& request = slot.request;
    if (!request.status().ok()) {
      note(fmt::format("receive {} of the {} stream failed: {}", slot.spec.seq,
                       name_of(slot.spec.stream), request.status().to_string()));
      ++report_.failed;
      return;
    }
    ++report_.received;
    report_.bytes_received += request.length();
    std::string wrong;
    if (request.peer() != peer_) {
      wrong = fmt::format("receive {} of the {} stream matched a message from peer {}",
                          slot.spec.seq, name_of(slot.spec.stream), request.peer().index);
    } else if (slot.spec.stream == Stream::kTagged && request.tag() != slot.spec.tag) {
      wrong = fmt::format("receive {} of the tagged stream got tag {}, expected {}", slot.spec.seq,
                          request.tag(), slot.spec.tag);
    } else {
      wrong = in_.mismatch(slot.spec, std::span(slot.buffer).first(request.length()));
    }
    if (!wrong.empty()) {
      ++report_.wrong;
      note(std::move(wrong));
    }
  }

  void note(std::string problem) {
    if (report_.first_problem.empty()) {
      report_.first_problem = std::move(problem);
    }
  }

  void print_progress(Clock::duration elapsed) {
    const mrail::EndpointCounters counters = endpoint_.counters();
    std::size_t down = 0;
    for (const auto& path : counters.paths) {
      down += path.up ? 0 : 1;
    }
    std::fprintf(stderr,
                 "railyard-soak: host %c at %.0f s: sent %llu and received %llu of %llu, "
                 "%zu of %zu paths down\n",
                 options_.direction == 0 ? 'a' : 'b',
                 std::chrono::duration<double>(elapsed).count(),
                 static_cast<unsigned long long>(report_.sent),
                 static_cast<unsigned long long>(report_.received),
                 static_cast<unsigned long long>(options_.messages), down, counters.paths.size());
  }

  SideOptions options_;
  MessagePlan out_;
  MessagePlan in_;
  Endpoint endpoint_;
  PeerId peer_{};
  std::array<std::uint64_t, kStreams> expected_;
  std::array<std::vector<SendSlot>, kStreams> sends_;
  std::array<std::vector<ReceiveSlot>, kStreams> receives_;
  std::uint64_t next_index_ = 0;
  std::array<std::uint64_t, kStreams> next_seq_out_{};
  std::array<std::uint64_t, kStreams> next_seq_in_{};
  std::size_t busy_sends_ = 0;
  std::size_t busy_receives_ = 0;
  Clock::time_point last_completion_;
  SideReport report_;
};

}  // namespace

void to_json(nlohmann::json& out, const SideReport& report) {
  out = nlohmann::json{{"sent", report.sent},
                       {"received", report.received},
                       {"bytes_sent", report.bytes_sent},
                       {"bytes_received", report.bytes_received},
                       {"wildcard_receives", report.wildcard_receives},
                       {"wrong", report.wrong},
                       {"failed", report.failed},
                       {"first_problem", report.first_problem},
                       {"finished", report.finished},
                       {"seconds", report.seconds},
                       {"duplicates_dropped", report.duplicates_dropped},
                       {"path_downs", report.path_downs},
                       {"path_ups", report.path_ups},
                       {"messages_resent", report.messages_resent},
                       {"bytes_resent", report.bytes_resent},
                       {"rail_resets", report.rail_resets}};
}

void from_json(const nlohmann::json& in, SideReport& report) {
  in.at("sent").get_to(report.sent);
  in.at("received").get_to(report.received);
  in.at("bytes_sent").get_to(report.bytes_sent);
  in.at("bytes_received").get_to(report.bytes_received);
  in.at("wildcard_receives").get_to(report.wildcard_receives);
  in.at("wrong").get_to(report.wrong);
  in.at("failed").get_to(report.failed);
  in.at("first_problem").get_to(report.first_problem);
  in.at("finished").get_to(report.finished);
  in.at("seconds").get_to(report.seconds);
  in.at("duplicates_dropped").get_to(report.duplicates_dropped);
  in.at("path_downs").get_to(report.path_downs);
  in.at("path_ups").get_to(report.path_ups);
  in.at("messages_resent").get_to(report.messages_resent);
  in.at("bytes_resent").get_to(report.bytes_resent);
  in.at("rail_resets").get_to(report.rail_resets);
}

SideReport run_side(const SideOptions& options, const tools::Pipe& peer,
                    const std::function<void()>& connected) {
  Side side(options, peer);
  connected();
  side.run();
  // Through here, the other side may still need us: acknowledgements of
  // what it sent, reads of what we sent. Each says so over the pipe, read
  // by a thread (a short timeout could cut a message in half).
  std::atomic<bool> peer_through{false};
  peer.send_text("through");
  std::thread reader([&] {
    try {
      (void)peer.receive_text(options.stall_timeout);
    } catch (const std::exception&) {
      // A peer that died or stalled: its own report says why.
    }
    peer_through.store(true);
  });
  side.linger_until(peer_through);
  reader.join();
  return side.report();
}

}  // namespace railyard::soak
