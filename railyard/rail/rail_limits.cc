#include "railyard/rail/rail_limits.h"

#include <rdma/fi_domain.h>

#include <array>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"

namespace railyard::rail {
namespace {

template <std::size_t N>
std::string flags_string(std::uint64_t bits,
                         const std::array<std::pair<std::uint64_t, const char*>, N>& names) {
  std::string out;
  for (const auto& [bit, name] : names) {
    if ((bits & bit) != 0) {
      out += (out.empty() ? "" : "|");
      out += name;
    }
  }
  return out.empty() ? "none" : out;
}

const char* address_format_name(std::uint32_t format) {
  switch (format) {
    case FI_SOCKADDR_IN:
      return "FI_SOCKADDR_IN";
    case FI_SOCKADDR_IN6:
      return "FI_SOCKADDR_IN6";
    case FI_SOCKADDR_IB:
      return "FI_SOCKADDR_IB";
    case FI_SOCKADDR:
      return "FI_SOCKADDR";
    case FI_ADDR_STR:
      return "FI_ADDR_STR";
    default:
      return "provider-specific";
  }
}

}  // namespace

std::uint64_t rail_order(const std::string& provider) {
  // libfabric's shm moves an fi_read or fi_write with one process_vm_readv
  // or process_vm_writev in the caller ("fast RMA") only in a domain opened
  // without RMA orderings. Asked for FI_ORDER_RAW or FI_ORDER_SAW, it queues
  // every RMA to the peer as a request, and libfabric 1.17 (Debian 12's)
  // then serves every read request by copying through shared bounce buffers
  // instead of CMA, several times slower for large messages
  // (docs/benchmarks.md, "Tuning choices").
  //
  // Railyard's orderings still hold without the request. A fast RMA is in
  // the peer's memory when the call returns. An RMA shm does not do fast (no
  // CMA between the two processes; in releases after 1.17 also a write or
  // read of at most its 4 KiB inject size) joins the peer's first-in
  // first-out command queue, as sends do. So a flush (a 1-byte read posted
  // once the writes completed: fast only where the writes were too) and a
  // send after it find every write landed; tests/comm/shared_memory_test.cc
  // checks puts of both kinds.
  return provider == "shm" ? 0 : kRailOrder;
}

std::string caps_string(std::uint64_t caps) {
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 9> kNames{{
      {FI_MSG, "FI_MSG"},
      {FI_TAGGED, "FI_TAGGED"},
      {FI_RMA, "FI_RMA"},
      {FI_READ, "FI_READ"},
      {FI_WRITE, "FI_WRITE"},
      {FI_REMOTE_READ, "FI_REMOTE_READ"},
      {FI_REMOTE_WRITE, "FI_REMOTE_WRITE"},
      {FI_SEND, "FI_SEND"},
      {FI_RECV, "FI_RECV"},
  }};
  return flags_string(caps, kNames);
}

bool RailLimits::rma() const noexcept {
  constexpr std::uint64_t kRma = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  return (caps & kRma) == kRma;
}

std::string RailLimits::mr_mode_string() const {
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 10> kNames{{
      {FI_MR_LOCAL, "FI_MR_LOCAL"},
      {FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR"},
      {FI_MR_ALLOCATED, "FI_MR_ALLOCATED"},
      {FI_MR_PROV_KEY, "FI_MR_PROV_KEY"},
      {FI_MR_ENDPOINT, "FI_MR_ENDPOINT"},
      {FI_MR_RAW, "FI_MR_RAW"},
      {FI_MR_MMU_NOTIFY, "FI_MR_MMU_NOTIFY"},
      {FI_MR_RMA_EVENT, "FI_MR_RMA_EVENT"},
      {FI_MR_HMEM, "FI_MR_HMEM"},
      {FI_MR_COLLECTIVE, "FI_MR_COLLECTIVE"},
  }};
  return flags_string(mr_mode, kNames);
}

std::string RailLimits::summary() const {
  return fmt::format(
      "provider {}, fabric {}, domain {}, {} addresses, max message {} B, inject {} B, "
      "queues tx {} / rx {}, MR mode {}, {}-byte keys, {}-byte CQ data",
      provider, fabric, domain, address_format, max_message_size, inject_size, tx_queue_size,
      rx_queue_size, mr_mode_string(), mr_key_size, cq_data_size);
}

RailLimits read_limits(const fi_info& info) {
  RailLimits limits;
  limits.provider = info.fabric_attr->prov_name != nullptr ? info.fabric_attr->prov_name : "";
  limits.fabric = info.fabric_attr->name != nullptr ? info.fabric_attr->name : "";
  limits.domain = info.domain_attr->name != nullptr ? info.domain_attr->name : "";
  limits.address_format = address_format_name(info.addr_format);
  limits.address_length = info.src_addrlen;
  limits.caps = info.caps;
  limits.max_message_size = info.ep_attr->max_msg_size;
  limits.inject_size = info.tx_attr->inject_size;
  limits.tx_queue_size = info.tx_attr->size;
  limits.rx_queue_size = info.rx_attr->size;
  limits.iov_limit = info.tx_attr->iov_limit;
  limits.rma_iov_limit = info.tx_attr->rma_iov_limit;
  limits.cq_data_size = info.domain_attr->cq_data_size;
  limits.mr_key_size = info.domain_attr->mr_key_size;
  limits.mr_mode = static_cast<std::uint64_t>(info.domain_attr->mr_mode);
  limits.msg_order = info.tx_attr->msg_order;
  return limits;
}

void require_rail_limits(const RailLimits& limits) {
  std::vector<std::string> missing;
  if ((limits.caps & (FI_MSG | FI_TAGGED)) != (FI_MSG | FI_TAGGED)) {
    missing.emplace_back(
        fmt::format("FI_MSG and FI_TAGGED (it offers {})", caps_string(limits.caps)));
  }
  if (!limits.rma()) {
    missing.emplace_back(
        "RMA read and write (FI_RMA with FI_READ, FI_WRITE, FI_REMOTE_READ, "
        "FI_REMOTE_WRITE), which rendezvous and RMA windows use");
  }
  if (limits.max_message_size < kMinMaxMessageSize) {
    missing.emplace_back(fmt::format("messages of at least {} bytes (its maximum is {})",
                                     kMinMaxMessageSize, limits.max_message_size));
  }
  if (limits.tx_queue_size < kMinQueueSize || limits.rx_queue_size < kMinQueueSize) {
    missing.emplace_back(fmt::format("queues of at least {} entries (it offers tx {}, rx {})",
                                     kMinQueueSize, limits.tx_queue_size, limits.rx_queue_size));
  }
  if ((limits.mr_mode & ~kRailMrModes & ~static_cast<std::uint64_t>(FI_MR_BASIC)) != 0) {
    missing.emplace_back(fmt::format("memory registration in modes railyard handles ({} asked)",
                                     limits.mr_mode_string()));
  }
  if (!missing.empty()) {
    throw Error(fmt::format("provider '{}' cannot carry a rail: it lacks {}", limits.provider,
                            join_list(missing, "and")));
  }
}

}  // namespace railyard::rail
