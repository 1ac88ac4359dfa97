// Raw rails (endpoints of the rail provider without the multi-rail layer): one rail
// is the single-NIC baseline; several carry independent streams side by
// side, which measures what the rails can carry in parallel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench_transport.h"
#include "railyard/rail/rail.h"

namespace railyard::bench {

class RailsTransport final : public BenchTransport {
 public:
  // Transfer i goes on rail i % rails.
  RailsTransport(const std::vector<std::string>& addresses, std::size_t max_size,
                 std::size_t slots);

  std::vector<std::byte> address() override;
  void connect(std::span<const std::byte> peer_address) override;
  void post_send(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void wait_all(std::chrono::milliseconds timeout) override;
  [[nodiscard]] std::vector<RailBytes> rail_bytes() const override;

 private:
  std::vector<std::unique_ptr<rail::Rail>> rails_;
  std::vector<rail::Rail*> pointers_;
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<rail::LocalRegion> regions_;
  std::vector<rail::RailPeer> peers_;
  std::vector<rail::Request> requests_;
  std::vector<std::size_t> posted_;
};

}  // namespace railyard::bench
