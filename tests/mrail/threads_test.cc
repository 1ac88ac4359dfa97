// Several threads on one multi-rail endpoint: a thread waiting for a
// message that has not come must not shut the others out of the endpoint.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "endpoint_pair.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {
namespace {

using namespace std::chrono_literals;

constexpr int kThreadMessages = 100;
constexpr std::uint64_t kStreamTag = 1;
constexpr std::uint64_t kLastTag = 9;
constexpr auto kTimeout = 30s;

// Endpoint 0's first thread waits for the message endpoint 1 sends last;
// endpoint 1 sends it only after receiving what endpoint 0's second thread
// sends meanwhile. Were the waiting thread to hold the endpoint for its
// whole wait, that stream could not go out and the wait would time out.
TEST(EndpointThreads, AWaitDoesNotHoldUpAnotherThreadsSends) {
  for (const char* table : {"-1:fixed", "-1:striping"}) {
    SCOPED_TRACE(table);
    testing::EndpointGroup group(
        {testing::endpoint_options(2, table), testing::endpoint_options(2, table)});
    Endpoint& left = group[0];
    Endpoint& right = group[1];
    const PeerId to_right = group.ids[0][1];
    const PeerId to_left = group.ids[1][0];

    int last = 0;
    Request last_recv;
    ASSERT_TRUE(left.recv(last_recv, to_right, &last, sizeof(last), kLastTag).ok());
    std::atomic<bool> waiting{false};
    bool last_arrived = false;
    std::thread waiter([&] {
      waiting = true;
      last_arrived = left.wait(last_recv, kTimeout);
    });
    while (!waiting) {
      std::this_thread::yield();
    }
    std::this_thread::sleep_for(20ms);  // the waiter is in its wait by now
    std::atomic<int> sent{0};
    std::thread sender([&] {
      for (int i = 0; i < kThreadMessages; ++i) {
        Request send;
        if (!left.send(send, to_right, &i, sizeof(i), kStreamTag).ok() ||
            !left.wait(send, kTimeout) || !send.status().ok()) {
          return;
        }
        ++sent;
      }
    });
    int wrong = 0;
    int received = 0;
    for (; received < kThreadMessages; ++received) {
      int value = -1;
      Request recv;
      ASSERT_TRUE(right.recv(recv, to_left, &value, sizeof(value), kStreamTag).ok());
      if (!right.wait(recv, kTimeout)) {
        break;
      }
      wrong += value == received ? 0 : 1;
    }
    const int value = 4242;
    Request send;
    ASSERT_TRUE(right.send(send, to_left, &value, sizeof(value), kLastTag).ok());
    EXPECT_TRUE(right.wait(send, kTimeout));
    sender.join();
    waiter.join();
    EXPECT_EQ(sent.load(), kThreadMessages);
    EXPECT_EQ(received, kThreadMessages) << "the stream was held up behind the other thread's wait";
    EXPECT_EQ(wrong, 0);
    EXPECT_TRUE(last_arrived);
    EXPECT_EQ(last, value);
  }
}

// Threads waiting on one endpoint each for their own message all see it,
// whichever thread took in its completion.
TEST(EndpointThreads, EveryWaitingThreadSeesItsMessage) {
  constexpr int kThreads = 4;
  testing::EndpointGroup group({testing::endpoint_options(2), testing::endpoint_options(2)});
  Endpoint& left = group[0];
  Endpoint& right = group[1];
  std::vector<int> values(kThreads, -1);
  std::vector<Request> recvs(kThreads);
  std::vector<int> arrived(kThreads, 0);
  std::vector<std::thread> waiters;
  for (int t = 0; t < kThreads; ++t) {
    const auto index = static_cast<std::size_t>(t);
    ASSERT_TRUE(left.recv(recvs[index], group.ids[0][1], &values[index], sizeof(int),
                          static_cast<std::uint64_t>(100 + t))
                    .ok());
    waiters.emplace_back(
        [&, index] { arrived[index] = left.wait(recvs[index], kTimeout) ? 1 : 0; });
  }
  std::this_thread::sleep_for(20ms);
  // In reverse order, each from a different sleep of the waiters.
  for (int t = kThreads - 1; t >= 0; --t) {
    const int value = t * 11;
    Request send;
    ASSERT_TRUE(
        right
            .send(send, group.ids[1][0], &value, sizeof(value), static_cast<std::uint64_t>(100 + t))
            .ok());
    ASSERT_TRUE(right.wait(send, kTimeout));
    std::this_thread::sleep_for(5ms);
  }
  for (auto& thread : waiters) {
    thread.join();
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(arrived[static_cast<std::size_t>(t)], 1) << "thread " << t;
    EXPECT_EQ(values[static_cast<std::size_t>(t)], t * 11) << "thread " << t;
  }
}

}  // namespace
}  // namespace railyard::mrail
