#include "railyard/fabric/passive_endpoint.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "railyard/common/error.h"

namespace railyard::fabric {

PassiveEndpoint::PassiveEndpoint(const Fabric& fabric, fi_info& info) {
  fid_pep* raw = nullptr;
  check_fabric(fi_passive_ep(fabric.get(), &info, &raw, nullptr), "fi_passive_ep",
               "opening the listening endpoint");
  handle_ = FidHandle<fid_pep>(raw, "passive endpoint");
}

void PassiveEndpoint::bind(const EventQueue& eq) {
  check_fabric(fi_pep_bind(handle_.get(), &eq.get()->fid, 0), "fi_pep_bind",
               "binding the listening endpoint's event queue");
}

void PassiveEndpoint::listen() {
  check_fabric(fi_listen(handle_.get()), "fi_listen", "starting to listen");
}

std::vector<std::byte> PassiveEndpoint::name() const {
  std::size_t len = 0;
  const int probe = fi_getname(&handle_.get()->fid, nullptr, &len);
  if (probe != -FI_ETOOSMALL && probe != 0) {
    check_fabric(probe, "fi_getname", "asking for the listening address length");
  }
  std::vector<std::byte> out(len);
  check_fabric(fi_getname(&handle_.get()->fid, out.data(), &len), "fi_getname",
               "reading the listening address");
  out.resize(len);
  return out;
}

void PassiveEndpoint::reject(fid_t request, std::span<const std::byte> data) {
  check_fabric(fi_reject(handle_.get(), request, data.data(), data.size()), "fi_reject",
               "rejecting a connection request");
}

}  // namespace railyard::fabric
