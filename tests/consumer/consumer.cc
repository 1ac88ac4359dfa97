// Uses only installed headers: two rails exchange one tagged message.
#include <railyard/rail/progress.h>
#include <railyard/rail/rail.h>

#include <array>
#include <cstdio>
#include <cstring>

int main() {
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
