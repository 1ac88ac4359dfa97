#include "railyard/fabric/endpoint.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "railyard/common/error.h"

namespace railyard::fabric {

Endpoint::Endpoint(const Domain& domain, fi_info& info) {
  fid_ep* raw = nullptr;
  check_fabric(fi_endpoint(domain.get(), &info, &raw, nullptr), "fi_endpoint",
               "opening the endpoint");
  handle_ = FidHandle<fid_ep>(raw, "endpoint");
}

void Endpoint::bind(const AddressVector& av) {
  check_fabric(fi_ep_bind(handle_.get(), &av.get()->fid, 0), "fi_ep_bind",
               "binding the address vector");
}

void Endpoint::bind(const CompletionQueue& cq) {
  check_fabric(fi_ep_bind(handle_.get(), &cq.get()->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind",
               "binding the completion queue");
}

void Endpoint::enable() {
  check_fabric(fi_enable(handle_.get()), "fi_enable", "enabling the endpoint");
}

void Endpoint::bind(const EventQueue& eq) {
  check_fabric(fi_ep_bind(handle_.get(), &eq.get()->fid, 0), "fi_ep_bind",
               "binding the event queue");
}

void Endpoint::connect(const void* address, std::span<const std::byte> data) {
  check_fabric(fi_connect(handle_.get(), address, data.data(), data.size()), "fi_connect",
               "starting to connect");
}

void Endpoint::accept(std::span<const std::byte> data) {
  check_fabric(fi_accept(handle_.get(), data.data(), data.size()), "fi_accept",
               "accepting the connection");
}

int Endpoint::shutdown() noexcept { return fi_shutdown(handle_.get(), 0); }

std::vector<std::byte> Endpoint::name() const {
  std::size_t len = 0;
  const int probe = fi_getname(&handle_.get()->fid, nullptr, &len);
  if (probe != -FI_ETOOSMALL && probe != 0) {
    check_fabric(probe, "fi_getname", "asking for the endpoint address length");
  }
  std::vector<std::byte> out(len);
  check_fabric(fi_getname(&handle_.get()->fid, out.data(), &len), "fi_getname",
               "reading the endpoint address");
  out.resize(len);
  return out;
}

}  // namespace railyard::fabric
