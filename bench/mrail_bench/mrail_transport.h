// A railyard multi-rail endpoint as a benchmark subject.
#pragma once

#include <vector>

#include "bench_transport.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::bench {

// Bytes each of the endpoint's rails carried, for a subject's report.
[[nodiscard]] std::vector<RailBytes> rail_bytes_of(const mrail::Endpoint& endpoint);

class MrailTransport final : public BenchTransport {
 public:
  MrailTransport(mrail::Options options, std::size_t max_size, std::size_t slots);

  std::vector<std::byte> address() override { return endpoint_.address(); }
  void connect(std::span<const std::byte> peer_address) override;
  void post_send(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void wait_all(std::chrono::milliseconds timeout) override;
  [[nodiscard]] std::vector<RailBytes> rail_bytes() const override;

 private:
  mrail::Endpoint endpoint_;
  std::vector<std::byte> buffer_;
  std::vector<mrail::Request> requests_;
  std::vector<std::size_t> posted_;
  mrail::PeerId peer_;
};

}  // namespace railyard::bench
