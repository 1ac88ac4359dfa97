// Uses only installed headers: a job of one rank runs an allreduce through
// the Communicator, and two rails exchange one tagged message.
#include <railyard/comm/collectives.h>
#include <railyard/comm/communicator.h>
#include <railyard/rail/progress.h>
#include <railyard/rail/rail.h>

#include <array>
#include <cstdio>
#include <cstring>

namespace {

// A program started by no launcher is a job of one rank.
bool allreduce_alone() {
  const railyard::comm::Communicator world = railyard::comm::Communicator::world();
  std::array<double, 4> values{1, 2, 3, 4};
  railyard::comm::allreduce(world, railyard::comm::kInPlace, values.data(), values.size(),
                            railyard::comm::DataType::kFloat64, railyard::comm::ReduceOp::kSum);
  return world.size() == 1 && values[3] == 4;
}

}  // namespace

int main() {
  if (!allreduce_alone()) {
    std::fprintf(stderr, "consumer: the allreduce of a job of one rank went wrong\n");
    return 1;
  }
  railyard::rail::RailOptions options = railyard::rail::RailOptions::from_environment();
  options.address = "127.0.0.1";
  railyard::rail::Rail a(options);
  railyard::rail::Rail b(options);
  const railyard::rail::RailPeer to_b = a.insert_peer(b.address());

  std::array<char, 32> out{};
  std::array<char, 32> in{};
  std::strcpy(out.data(), "hello from a consumer");
  auto source = a.register_memory(out.data(), out.size());
  auto destination = b.register_memory(in.data(), in.size());
  railyard::rail::Request send;
  railyard::rail::Request recv;
  if (!b.post_tagged_recv(recv, destination.whole(), 1).ok() ||
      !a.post_tagged_send(send, to_b, source.whole(), 1).ok()) {
    return 2;
  }
  std::array<railyard::rail::Rail*, 2> rails{&a, &b};
  const bool done = railyard::rail::progress_until(
      rails, [&] { return send.done() && recv.done(); }, std::chrono::seconds(30), a.wait_policy());
  if (!done || !recv.status().ok() || std::strcmp(in.data(), out.data()) != 0) {
    std::fprintf(stderr, "consumer: message did not arrive intact\n");
    return 1;
  }
  std::printf("consumer: %s\n", in.data());
  return 0;
}
