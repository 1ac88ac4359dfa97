#include "ofi_mrail_transport.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <array>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "railyard/common/error.h"

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kPostTimeout{20};

}  // namespace

OfiMrailTransport::OfiMrailTransport(const std::string& provider, bool tagged, std::size_t max_size,
                                     std::size_t slots)
    : tagged_(tagged), buffer_(std::max<std::size_t>(max_size, 1)), contexts_(slots) {
  auto hints = fabric::FabricInfo::allocate();
  hints->caps = FI_MSG | (tagged ? FI_TAGGED : 0);
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->ep_attr->type = FI_EP_RDM;
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_RAW | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->domain_attr->av_type = FI_AV_TABLE;
  hints.set_provider(provider);
  fabric::FabricInfo list;
  check_fabric(fabric::get_info(nullptr, nullptr, 0, hints, list), "fi_getinfo",
               fmt::format("looking for provider '{}'", provider));
  info_ = fabric::FabricInfo::copy_of(*list.get());
  fabric_ = std::make_unique<fabric::Fabric>(*info_.get());
  domain_ = std::make_unique<fabric::Domain>(*fabric_, *info_.get());
  av_ = std::make_unique<fabric::AddressVector>(*domain_, 4);
  cq_ = std::make_unique<fabric::CompletionQueue>(*domain_, slots * 4);
  endpoint_ = std::make_unique<fabric::Endpoint>(*domain_, *info_.get());
  endpoint_->bind(*av_);
  endpoint_->bind(*cq_);
  endpoint_->enable();
  if ((info_->domain_attr->mr_mode & FI_MR_LOCAL) != 0) {
    region_ = fabric::MemoryRegion(*domain_, buffer_.data(), buffer_.size(), FI_SEND | FI_RECV, 1);
    descriptor_ = region_.descriptor();
  }
}

void OfiMrailTransport::connect(std::span<const std::byte> peer_address) {
  peer_ = av_->insert(peer_address);
}

void OfiMrailTransport::progress_once() {
  std::array<fi_cq_tagged_entry, 16> entries{};
  const long n = cq_->read(entries);
  if (n > 0) {
    outstanding_ -= static_cast<std::size_t>(n);
  } else if (n == -FI_EAVAIL) {
    fi_cq_err_entry error{};
    if (cq_->read_error(error)) {
      --outstanding_;
      error_ = fmt::format("{} ({})", fi_strerror(error.err), cq_->error_text(error));
    }
  }
}

template <typename Post>
void OfiMrailTransport::post(const char* what, Post post_once) {
  const auto deadline = Clock::now() + kPostTimeout;
  while (true) {
    const long rc = post_once();
    if (rc == 0) {
      ++outstanding_;
      return;
    }
    if (rc != -FI_EAGAIN || Clock::now() > deadline) {
      throw FabricError(what, static_cast<int>(rc), "posting to ofi_mrail");
    }
    progress_once();
  }
}

void OfiMrailTransport::post_send(std::size_t slot, std::size_t size, std::uint64_t tag) {
  fid_ep* ep = endpoint_->get();
  void* context = &contexts_[slot];
  if (tagged_) {
    post("fi_tsend",
         [&] { return fi_tsend(ep, buffer_.data(), size, descriptor_, peer_, tag, context); });
  } else {
    post("fi_send", [&] { return fi_send(ep, buffer_.data(), size, descriptor_, peer_, context); });
  }
}

void OfiMrailTransport::post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) {
  fid_ep* ep = endpoint_->get();
  void* context = &contexts_[slot];
  if (tagged_) {
    post("fi_trecv", [&] {
      return fi_trecv(ep, buffer_.data(), size, descriptor_, FI_ADDR_UNSPEC, tag, 0, context);
    });
  } else {
    post("fi_recv",
         [&] { return fi_recv(ep, buffer_.data(), size, descriptor_, FI_ADDR_UNSPEC, context); });
  }
}

void OfiMrailTransport::wait_all(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (outstanding_ > 0) {
    progress_once();
    if (!error_.empty()) {
      throw std::runtime_error("ofi_mrail transfer failed: " + error_);
    }
    if (Clock::now() > deadline) {
      throw std::runtime_error(fmt::format("ofi_mrail: {} transfers still pending after {} ms",
                                           outstanding_, timeout.count()));
    }
    std::this_thread::yield();
  }
}

}  // namespace railyard::bench
