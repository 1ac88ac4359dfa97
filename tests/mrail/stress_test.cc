// Randomized traffic from several senders into one receiver over 1 to 4
// loopback rails: every payload checked by content, every sender's order
// checked, receives posted both before and after their messages arrive.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "endpoint_pair.h"
#include "pattern.h"

namespace railyard::mrail {
namespace {

using testing::endpoint_options;
using testing::EndpointGroup;
using testing::fill_pattern;
using testing::first_mismatch;

// Tags: class in bits 62-63, sender in 32-47, the sender's message index below.
//   class 0: received by ANY_SOURCE receives accepting any tag of the class;
//   class 1: received by receives naming the sender, any tag of the class;
//   class 2: received by receives naming sender and exact tag, posted in a
//            random order, some before the message is even sent.
// Classes 0 and 1 check MPI's non-overtaking rule: a sender's messages fill
// the receives that accept them in the order those were posted.
constexpr unsigned kClassShift = 62;
constexpr std::uint64_t kClassIgnore = ~(std::uint64_t{3} << kClassShift);
constexpr std::size_t kWildcardBuffer = 1 << 20;

std::uint64_t make_tag(unsigned cls, std::size_t sender, std::size_t index) {
  return (std::uint64_t{cls} << kClassShift) | (std::uint64_t{sender} << 32) | index;
}
std::size_t sender_of(std::uint64_t tag) { return (tag >> 32) & 0xFFFF; }
std::size_t index_of(std::uint64_t tag) { return tag & 0xFFFFFFFF; }
std::uint64_t seed_of(std::uint64_t tag) { return tag * 31 + 7; }

struct Message {
  std::size_t sender = 0;
  std::size_t index = 0;
  unsigned cls = 0;
  std::size_t size = 0;
  std::uint64_t tag = 0;
  std::vector<std::byte> payload;
  Request send;
  bool sent = false;
  // Class 2 only.
  std::vector<std::byte> landing;
  Request recv;
  bool recv_posted = false;
};

struct WildcardReceive {
  std::vector<std::byte> buffer = std::vector<std::byte>(kWildcardBuffer);
  Request request;
  std::uint64_t posted_at = 0;
  bool busy = false;
};

std::size_t random_size(std::mt19937_64& random, bool wildcard) {
  const unsigned bucket = random() % 100;
  std::size_t limit = 0;
  if (bucket < 45) {
    limit = 1024;
  } else if (bucket < 70) {
    limit = std::size_t{64} * 1024;
  } else if (bucket < 88 || wildcard) {
    limit = wildcard ? kWildcardBuffer : 1 << 20;
  } else if (bucket < 98) {
    limit = 4 << 20;
  } else {
    limit = 16 << 20;
  }
  return random() % (limit + 1);
}

struct StressCase {
  std::size_t rails;
  const char* table;
  std::size_t per_sender;
};

class Stress : public ::testing::TestWithParam<StressCase> {};

TEST_P(Stress, EveryMessageOnceIntactAndInOrder) {
  constexpr std::size_t kSenders = 3;
  constexpr std::size_t kInFlightPerSender = 24;
  constexpr std::size_t kWildcardsPosted = 12;
  const auto& param = GetParam();
  std::mt19937_64 random(param.rails * 1000 + param.per_sender);

  std::vector<mrail::Options> options;
  for (std::size_t i = 0; i <= kSenders; ++i) {
    options.push_back(endpoint_options(param.rails, param.table));
  }
  options[0].window = 64;  // the receiver makes senders wait for credit too
  EndpointGroup group(options);
  mrail::Endpoint& receiver = group[0];

  std::vector<std::vector<std::unique_ptr<Message>>> messages(kSenders);
  std::vector<std::size_t> class1_total(kSenders, 0);
  std::size_t class0_total = 0;
  std::vector<Message*> class2;
  for (std::size_t s = 0; s < kSenders; ++s) {
    for (std::size_t k = 0; k < param.per_sender; ++k) {
      auto message = std::make_unique<Message>();
      message->sender = s;
      message->index = k;
      message->cls = static_cast<unsigned>(random() % 3);
      message->size = random_size(random, message->cls != 2);
      message->tag = make_tag(message->cls, s, k);
      message->payload.resize(std::max<std::size_t>(message->size, 1));
      fill_pattern(std::span(message->payload).first(message->size), seed_of(message->tag));
      if (message->cls == 0) {
        ++class0_total;
      } else if (message->cls == 1) {
        ++class1_total[s];
      } else {
        message->landing.resize(std::max<std::size_t>(message->size, 1));
        class2.push_back(message.get());
      }
      messages[s].push_back(std::move(message));
    }
  }
  std::shuffle(class2.begin(), class2.end(), random);

  std::vector<WildcardReceive> class0(kWildcardsPosted);
  // Requests stay in place: each pool is built at its final size.
  std::vector<std::vector<WildcardReceive>> class1;
  class1.reserve(kSenders);
  for (std::size_t s = 0; s < kSenders; ++s) {
    class1.emplace_back(4);
  }
  std::size_t class0_posted = 0;
  std::vector<std::size_t> class1_posted(kSenders, 0);
  std::uint64_t post_clock = 0;
  // (sender, posted_at, index) for every class 0/1 receipt, checked at the end.
  std::vector<std::tuple<std::size_t, std::uint64_t, std::size_t, unsigned>> receipts;
  std::vector<std::vector<bool>> received(kSenders, std::vector<bool>(param.per_sender, false));
  std::vector<std::size_t> next_send(kSenders, 0);
  std::size_t outstanding = kSenders * param.per_sender;
  std::string failure;

  const auto check_payload = [&](std::uint64_t tag, const Request& request,
                                 std::span<const std::byte> data) {
    const std::size_t s = sender_of(tag);
    const std::size_t k = index_of(tag);
    if (!request.status().ok()) {
      failure = "receive failed: " + request.status().to_string();
      return;
    }
    if (s >= kSenders || k >= param.per_sender || received[s][k]) {
      failure =
          "message " + std::to_string(s) + "/" + std::to_string(k) + " delivered twice or unknown";
      return;
    }
    received[s][k] = true;
    const Message& message = *messages[s][k];
    if (request.length() != message.size || request.peer() != group.ids[0][s + 1]) {
      failure = "message " + std::to_string(s) + "/" + std::to_string(k) +
                " has the wrong length or source";
      return;
    }
    if (auto bad = first_mismatch(data.first(message.size), seed_of(tag))) {
      failure = "message " + std::to_string(s) + "/" + std::to_string(k) + " corrupt at byte " +
                std::to_string(*bad) + " of " + std::to_string(message.size);
    }
    --outstanding;
  };

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  while ((outstanding > 0 || std::any_of(next_send.begin(), next_send.end(),
                                         [&](std::size_t n) { return n < param.per_sender; })) &&
         failure.empty()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << outstanding << " messages still missing";
    // Senders keep a bounded number of sends in flight.
    for (std::size_t s = 0; s < kSenders; ++s) {
      std::size_t in_flight = 0;
      for (std::size_t k = 0; k < next_send[s]; ++k) {
        in_flight += messages[s][k]->send.in_flight() ? 1 : 0;
      }
      while (in_flight < kInFlightPerSender && next_send[s] < param.per_sender) {
        Message& message = *messages[s][next_send[s]++];
        ASSERT_TRUE(group[s + 1]
                        .send(message.send, group.ids[s + 1][0], message.payload.data(),
                              message.size, message.tag)
                        .ok());
        message.sent = true;
        ++in_flight;
      }
    }
    // Exact receives: some for messages already sent, some ahead of them.
    for (Message* message : class2) {
      if (message->recv_posted) {
        continue;
      }
      const bool ahead = message->index < next_send[message->sender] + 8;
      if ((message->sent && random() % 3 == 0) || (ahead && random() % 50 == 0)) {
        ASSERT_TRUE(receiver
                        .recv(message->recv, group.ids[0][message->sender + 1],
                              message->landing.data(), message->size, message->tag)
                        .ok());
        message->recv_posted = true;
      }
    }
    // Wildcard receives: harvest, then repost while messages remain.
    for (auto& slot : class0) {
      if (slot.busy && slot.request.done()) {
        slot.busy = false;
        check_payload(slot.request.tag(), slot.request, slot.buffer);
        receipts.emplace_back(sender_of(slot.request.tag()), slot.posted_at,
                              index_of(slot.request.tag()), 0);
      }
      if (!slot.busy && class0_posted < class0_total) {
        slot.posted_at = post_clock++;
        ASSERT_TRUE(receiver
                        .recv(slot.request, kAnySource, slot.buffer.data(), slot.buffer.size(),
                              std::uint64_t{0} << kClassShift, kClassIgnore)
                        .ok());
        slot.busy = true;
        ++class0_posted;
      }
    }
    for (std::size_t s = 0; s < kSenders; ++s) {
      for (auto& slot : class1[s]) {
        if (slot.busy && slot.request.done()) {
          slot.busy = false;
          check_payload(slot.request.tag(), slot.request, slot.buffer);
          receipts.emplace_back(sender_of(slot.request.tag()), slot.posted_at,
                                index_of(slot.request.tag()), 1);
        }
        if (!slot.busy && class1_posted[s] < class1_total[s]) {
          slot.posted_at = post_clock++;
          ASSERT_TRUE(receiver
                          .recv(slot.request, group.ids[0][s + 1], slot.buffer.data(),
                                slot.buffer.size(), std::uint64_t{1} << kClassShift, kClassIgnore)
                          .ok());
          slot.busy = true;
          ++class1_posted[s];
        }
      }
    }
    for (Message* message : class2) {
      if (message->recv_posted && message->recv.done() && !message->landing.empty()) {
        check_payload(message->tag, message->recv, message->landing);
        message->landing.clear();
        message->landing.shrink_to_fit();
      }
    }
    (void)group.run_until([] { return false; }, std::chrono::microseconds(200));
  }
  ASSERT_TRUE(failure.empty()) << failure;
  // Non-overtaking: per sender and class, receipts in posting order carry
  // increasing message indices.
  std::sort(receipts.begin(), receipts.end(),
            [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); });
  std::map<std::pair<std::size_t, unsigned>, std::size_t> last;
  for (const auto& [sender, posted_at, index, cls] : receipts) {
    const auto key = std::make_pair(sender, cls);
    if (auto it = last.find(key); it != last.end()) {
      ASSERT_LT(it->second, index) << "sender " << sender << " class " << cls << ": message "
                                   << index << " overtook " << it->second;
    }
    last[key] = index;
  }
  // Every send completed, every message once.
  for (std::size_t s = 0; s < kSenders; ++s) {
    for (const auto& message : messages[s]) {
      ASSERT_TRUE(group.run_until([&] { return message->send.done(); }));
      EXPECT_TRUE(message->send.status().ok()) << message->send.status().to_string();
      EXPECT_TRUE(received[s][message->index]) << s << "/" << message->index;
    }
  }
  const auto counters = receiver.counters();
  EXPECT_EQ(counters.dropped_messages, 0U);
  if (param.rails > 1 && std::string(param.table) != "-1:fixed") {
    EXPECT_GT(counters.early_arrivals, 0U) << "no message ever overtook another across rails";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Tables, Stress,
    ::testing::Values(StressCase{1, "-1:fixed", 400}, StressCase{2, "-1:round-robin", 400},
                      StressCase{3, "-1:striping", 400}, StressCase{4, "-1:striping", 400},
                      StressCase{4, "4k:fixed,64k:round-robin,-1:striping", 400},
                      StressCase{2, "16384:fixed,ULONG_MAX:striping", 400}),
    [](const auto& test) {
      return std::to_string(test.index) + "_" + std::to_string(test.param.rails) + "rails";
    });

TEST(StressRma, RandomPutsAndGetsLandExactly) {
  std::mt19937_64 random(99);
  EndpointGroup group({endpoint_options(4), endpoint_options(4)});
  constexpr std::size_t kWindow = 16 << 20;
  std::vector<std::byte> window(kWindow, std::byte{0});
  std::vector<std::byte> mirror(kWindow, std::byte{0});  // what the window should hold
  std::vector<std::byte> source(4 << 20);
  std::vector<std::byte> back(4 << 20);
  auto window_region = group[1].register_memory(window.data(), window.size());
  auto source_region = group[0].register_memory(source.data(), source.size());
  auto back_region = group[0].register_memory(back.data(), back.size());
  const auto remote = group[0].import_region(group.ids[0][1], window_region.remote_key());
  for (int round = 0; round < 150; ++round) {
    const std::size_t size = random() % 3 == 0 ? random() % (4 << 20) : random() % 70000;
    const std::size_t offset = random() % (kWindow - size + 1);
    fill_pattern(std::span(source).first(size), static_cast<std::uint64_t>(round));
    std::copy_n(source.begin(), size, mirror.begin() + static_cast<std::ptrdiff_t>(offset));
    Request put;
    ASSERT_TRUE(group[0].put(put, source_region, 0, remote, offset, size).ok());
    ASSERT_TRUE(group.run_until([&] { return put.done(); }));
    ASSERT_TRUE(put.status().ok()) << put.status().to_string();
    Request flush;
    ASSERT_TRUE(group[0].flush(flush, remote).ok());
    ASSERT_TRUE(group.run_until([&] { return flush.done(); }));
    ASSERT_TRUE(flush.status().ok()) << flush.status().to_string();
    // Read back a random range, which may span earlier puts.
    const std::size_t get_size = random() % (back.size() + 1);
    const std::size_t get_offset = random() % (kWindow - get_size + 1);
    Request get;
    ASSERT_TRUE(group[0].get(get, back_region, 0, remote, get_offset, get_size).ok());
    ASSERT_TRUE(group.run_until([&] { return get.done(); }));
    ASSERT_TRUE(get.status().ok()) << get.status().to_string();
    ASSERT_TRUE(std::equal(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(get_size),
                           mirror.begin() + static_cast<std::ptrdiff_t>(get_offset)))
        << "round " << round;
  }
  EXPECT_EQ(window, mirror);
}

}  // namespace
}  // namespace railyard::mrail
