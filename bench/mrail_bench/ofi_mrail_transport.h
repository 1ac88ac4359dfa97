// libfabric's own multi-rail provider (ofi_mrail) as a benchmark subject,
// over the same rails. The provider reads FI_OFI_MRAIL_ADDR once, when
// libfabric loads it, so the variable must be set before the first libfabric
// call of the process (the benchmark runs each subject in fresh processes).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rdma/fabric.h>

#include "bench_transport.h"
#include "railyard/fabric/address_vector.h"
#include "railyard/fabric/completion_queue.h"
#include "railyard/fabric/endpoint.h"
#include "railyard/fabric/fabric.h"
#include "railyard/fabric/info.h"
#include "railyard/fabric/memory_region.h"

namespace railyard::bench {

class OfiMrailTransport final : public BenchTransport {
 public:
  // provider: the layered name, e.g. "tcp;ofi_rxm;ofi_mrail". tagged: use
  // fi_tsend/fi_trecv, else fi_send/fi_recv (tags ignored). Throws
  // FabricError when the provider refuses, as ofi_mrail 1.17 does over tcp.
  OfiMrailTransport(const std::string& provider, bool tagged, std::size_t max_size,
                    std::size_t slots);

  std::vector<std::byte> address() override { return endpoint_->name(); }
  void connect(std::span<const std::byte> peer_address) override;
  void post_send(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void wait_all(std::chrono::milliseconds timeout) override;

 private:
  // Retries a post while the provider says FI_EAGAIN, progressing meanwhile.
  template <typename Post>
  void post(const char* what, Post post_once);
  void progress_once();

  bool tagged_;
  fabric::FabricInfo info_;
  std::unique_ptr<fabric::Fabric> fabric_;
  std::unique_ptr<fabric::Domain> domain_;
  std::unique_ptr<fabric::AddressVector> av_;
  std::unique_ptr<fabric::CompletionQueue> cq_;
  std::unique_ptr<fabric::Endpoint> endpoint_;
  std::vector<std::byte> buffer_;
  fabric::MemoryRegion region_;
  void* descriptor_ = nullptr;
  std::vector<fi_context2> contexts_;
  fi_addr_t peer_ = FI_ADDR_UNSPEC;
  std::size_t outstanding_ = 0;
  std::string error_;
};

}  // namespace railyard::bench
