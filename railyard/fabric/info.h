// Ownership of fi_info lists, and fi_getinfo.
#pragma once

#include <rdma/fabric.h>

#include <memory>
#include <string>

namespace railyard::fabric {

class FabricInfo {
 public:
  FabricInfo() = default;
  // Takes ownership of a list returned by libfabric.
  explicit FabricInfo(fi_info* list) : list_(list) {}

  // A zeroed fi_info (fi_allocinfo) to fill in as hints.
  [[nodiscard]] static FabricInfo allocate();

  // A copy of one entry alone (fi_dupinfo), independent of its list.
  [[nodiscard]] static FabricInfo copy_of(const fi_info& entry);

  // Sets fabric_attr->prov_name; the string is owned by the fi_info.
  void set_provider(const std::string& name);

  [[nodiscard]] fi_info* get() const noexcept { return list_.get(); }
  [[nodiscard]] fi_info* operator->() const noexcept { return list_.get(); }
  explicit operator bool() const noexcept { return list_ != nullptr; }

 private:
  struct Deleter {
    void operator()(fi_info* info) const noexcept { fi_freeinfo(info); }
  };
  std::unique_ptr<fi_info, Deleter> list_;
};

// fi_getinfo at the API version railyard was built against. Returns the raw
// return code so callers can diagnose -FI_ENODATA; `out` is set on success.
// FI_OFI_MRAIL_ADDR is checked first (ConfigError): libfabric's ofi_mrail
// provider, which takes part in most calls, aborts the process on a value
// it cannot convert (detail/ofi_mrail_guard.h).
[[nodiscard]] int get_info(const char* node, const char* service, std::uint64_t flags,
                           const FabricInfo& hints, FabricInfo& out);

// The libfabric API version railyard requests.
[[nodiscard]] std::uint32_t api_version() noexcept;

}  // namespace railyard::fabric
