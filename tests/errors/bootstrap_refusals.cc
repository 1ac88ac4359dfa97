// Connections the root bootstrap refuses: a rank of another job, of another
// size, of a rank the job does not have, speaking another protocol version,
// or coming after the job formed. Each is refused with a reason the
// refused side reads (and the job goes on).
#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "bad_input.h"
#include "railyard/bootstrap/detail/root_wire.h"
#include "railyard/bootstrap/root_bootstrap.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/framing.h"
#include "railyard/rstream/listener.h"

namespace railyard::testing {
namespace {

using namespace std::chrono_literals;
using bootstrap::detail::Blob;
using bootstrap::detail::Hello;
using bootstrap::detail::RootMessage;
using Client = std::function<std::string(const bootstrap::BootstrapOptions&)>;

// A job of two ranks on loopback: its root waits on its own thread while
// `client` runs; rank 1 then joins. With `late`, rank 1 joins first and the
// client comes once the job has formed, while both ranks are in a barrier.
std::string refused_by_root(const Client& client, bool late = false) {
  rstream::Listener listener("127.0.0.1:0");
  bootstrap::BootstrapOptions options;
  options.job_key = "job";
  options.timeout = 20s;
  options.root = listener.address().to_string();
  const auto rank = [&](int which, const std::function<void()>& before_barrier) {
    try {
      auto bootstrap =
          which == 0 ? std::make_unique<bootstrap::RootBootstrap>(std::move(listener), 2,
                                                                  bootstrap::Blob{}, options)
                     : std::make_unique<bootstrap::RootBootstrap>(1, 2, bootstrap::Blob{}, options);
      before_barrier();
      bootstrap->barrier(20s);
    } catch (const std::exception&) {
      // The catalogue judges the client's refusal; the job's own tests
      // check that it goes on.
    }
  };
  std::thread root([&] { rank(0, [] {}); });
  std::string refusal;
  if (late) {
    rank(1, [&] { refusal = client(options); });
  } else {
    refusal = client(options);
    rank(1, [] {});
  }
  root.join();
  return refusal;
}

// Connects by hand and sends one frame; returns the root's refusal reason.
std::string raw_refusal(const bootstrap::BootstrapOptions& options, std::uint16_t type,
                        const bootstrap::Blob& payload) {
  rstream::Channel channel = rstream::Channel::connect(options.root);
  if (!rstream::send_frame(channel, type, payload).ok()) {
    return "the frame could not be sent";
  }
  rstream::Frame reply;
  if (!rstream::receive_frame(channel, reply).ok()) {
    return "no reply";
  }
  bootstrap::detail::Refuse refusal;
  std::string error;
  if (reply.type != static_cast<std::uint16_t>(RootMessage::kRefuse) ||
      !bootstrap::detail::decode(reply.payload, refusal, error)) {
    return "the reply is not a refusal";
  }
  return refusal.message;
}

Hello hello_of(std::uint32_t rank,
               std::uint16_t version = bootstrap::detail::kRootProtocolVersion) {
  return Hello{.version = version, .rank = rank, .size = 2, .key = "job", .descriptor = {}};
}

std::string hello_refusal(const bootstrap::BootstrapOptions& options, const Hello& hello) {
  return raw_refusal(options, static_cast<std::uint16_t>(RootMessage::kHello),
                     bootstrap::detail::encode(hello));
}

std::string join_refusal(const bootstrap::BootstrapOptions& options, int rank, int size) {
  return refusal_of(
      [&] { const bootstrap::RootBootstrap joined(rank, size, bootstrap::Blob{}, options); });
}

BadInput refusal(std::string input, std::string value, std::string expected,
                 std::string value_in_message, std::function<std::string()> refuse) {
  return BadInput{.kind = "Bootstrap refusals",
                  .input = std::move(input),
                  .value = std::move(value),
                  .expected = std::move(expected),
                  .refuse = std::move(refuse),
                  .input_in_message = {},
                  .value_in_message = std::move(value_in_message),
                  .secret = {}};
}

}  // namespace

std::vector<BadInput> bootstrap_refusals() {
  // The job key is a secret: the refusal must not print it.
  BadInput wrong_key = refusal("RAILYARD_JOB_KEY", "another job's key",
                               "RAILYARD_JOB_KEY differs from the root's", "<11 bytes>", [] {
                                 return refused_by_root([](bootstrap::BootstrapOptions options) {
                                   options.job_key = "another job";
                                   return join_refusal(options, 1, 2);
                                 });
                               });
  wrong_key.secret = "another job";
  return {
      std::move(wrong_key),
      refusal("job size", "5", "but the root's job has 2 ranks", "5",
              [] {
                return refused_by_root([](const bootstrap::BootstrapOptions& options) {
                  return join_refusal(options, 1, 5);
                });
              }),
      refusal("rank", "7", "expected 1 to 1 (rank 0 is the root)", "7",
              [] {
                return refused_by_root([](const bootstrap::BootstrapOptions& options) {
                  return hello_refusal(options, hello_of(7));
                });
              }),
      refusal("rank", "0", "expected 1 to 1 (rank 0 is the root)", "0",
              [] {
                return refused_by_root([](const bootstrap::BootstrapOptions& options) {
                  return hello_refusal(options, hello_of(0));
                });
              }),
      refusal("bootstrap protocol version", "9", "expected 1", "9",
              [] {
                return refused_by_root([](const bootstrap::BootstrapOptions& options) {
                  return hello_refusal(options, hello_of(1, 9));
                });
              }),
      refusal("hello", "a frame of type 5", "expected a hello first", "type 5",
              [] {
                return refused_by_root([](const bootstrap::BootstrapOptions& options) {
                  return raw_refusal(options, 5, bootstrap::Blob(8));
                });
              }),
      refusal("hello", "cut after 12 bytes", "malformed hello", "ends early",
              [] {
                return refused_by_root([](const bootstrap::BootstrapOptions& options) {
                  bootstrap::Blob hello = bootstrap::detail::encode(hello_of(1));
                  hello.resize(12);
                  return raw_refusal(options, 1, hello);
                });
              }),
      refusal("rank", "1, after the job formed", "the job is complete", "1",
              [] {
                return refused_by_root(
                    [](const bootstrap::BootstrapOptions& options) {
                      return join_refusal(options, 1, 2);
                    },
                    true);
              }),
  };
}

}  // namespace railyard::testing
