#include "railyard/fabric/address_vector.h"

#include <rdma/fi_errno.h>

#include <array>

#include "railyard/common/error.h"

namespace railyard::fabric {

AddressVector::AddressVector(const Domain& domain, std::size_t expected_peers) {
  fi_av_attr attr{};
  attr.type = FI_AV_TABLE;
  attr.count = expected_peers;
  fid_av* raw = nullptr;
  check_fabric(fi_av_open(domain.get(), &attr, &raw, nullptr), "fi_av_open",
               "opening the address vector");
  handle_ = FidHandle<fid_av>(raw, "address vector");
}

fi_addr_t AddressVector::insert(std::span<const std::byte> address) {
  fi_addr_t out = FI_ADDR_NOTAVAIL;
  const int rc = fi_av_insert(handle_.get(), address.data(), 1, &out, 0, nullptr);
  if (rc != 1 || out == FI_ADDR_NOTAVAIL) {
    throw FabricError("fi_av_insert", rc < 0 ? rc : -FI_EINVAL,
                      "inserting peer address " + to_string(address));
  }
  return out;
}

void AddressVector::remove(fi_addr_t peer) {
  check_fabric(fi_av_remove(handle_.get(), &peer, 1, 0), "fi_av_remove", "removing a peer");
}

std::string AddressVector::to_string(std::span<const std::byte> address) const {
  std::array<char, 256> text{};
  std::size_t len = text.size();
  const char* out = fi_av_straddr(handle_.get(), address.data(), text.data(), &len);
  return out == nullptr ? std::string("<unprintable address>") : std::string(text.data());
}

}  // namespace railyard::fabric
