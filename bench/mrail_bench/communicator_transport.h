// A railyard Communicator of two ranks as a benchmark subject: the same
// multi-rail endpoint and policy table as the endpoint subject, reached
// through the Communicator's API (tag layout, requests, waits, control
// plane), so the two measure what the Communicator layer costs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench_transport.h"
#include "railyard/comm/communicator.h"
#include "railyard/rstream/listener.h"

namespace railyard::bench {

class CommunicatorTransport final : public BenchTransport {
 public:
  // `root`: rank 0, which listens for the bootstrap on its first rail.
  // The rails and the policy table are set as FI_OFI_MRAIL_ADDR and
  // FI_OFI_MRAIL_CONFIG, as a job would set them.
  CommunicatorTransport(bool root, const std::vector<std::string>& rails,
                        const std::string& policy_table, std::size_t max_size, std::size_t slots,
                        std::chrono::milliseconds timeout);

  // Rank 0's bootstrap address; nothing for rank 1.
  std::vector<std::byte> address() override;
  // Rank 0 joins here; rank 1 only keeps the address and joins at its
  // first transfer, since the harness has it send its own address (which
  // rank 0 waits for) only after connect() returns.
  void connect(std::span<const std::byte> peer_address) override;
  void post_send(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void wait_all(std::chrono::milliseconds timeout) override;
  // Communicator::send and recv, as the Open MPI baseline's MPI_Send and
  // MPI_Recv.
  [[nodiscard]] bool has_blocking_calls() const override { return true; }
  void round_trip(std::size_t size, std::uint64_t tag, bool initiator) override;

 private:
  comm::Communicator& joined();

  bool root_;
  std::chrono::milliseconds timeout_;
  std::optional<rstream::Listener> listener_;  // rank 0, until it joins
  std::string root_address_;
  std::optional<comm::Communicator> world_;
  std::vector<std::byte> buffer_;
  std::vector<comm::Request> requests_;
  // The slots posted since the last wait, [first, last): only those are
  // waited on, as the endpoint subject waits only on what it posted (a wait
  // over every slot would test 60-odd idle requests per poll).
  std::size_t posted_first_ = SIZE_MAX;
  std::size_t posted_last_ = 0;
  void posted(std::size_t slot);
};

}  // namespace railyard::bench
