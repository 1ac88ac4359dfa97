#include "railyard/topology/hwloc_topology.h"

#include <hwloc.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include <fmt/format.h>

#include "railyard/common/detail/env.h"
#include "railyard/common/detail/errno_text.h"
#include "railyard/common/error.h"

namespace railyard::topology {
namespace {

// A topology being set up; destroyed unless loading succeeds.
class PendingTopology {
 public:
  PendingTopology() {
    if (hwloc_topology_init(&topology_) != 0) {
      throw Error("hwloc_topology_init", -errno,
                  fmt::format("hwloc_topology_init failed: {}", errno_text(errno)));
    }
    // Keep PCI devices and the network and OpenFabrics OS devices under
    // them: without I/O objects hwloc knows no NICs.
    (void)hwloc_topology_set_io_types_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  }
  PendingTopology(const PendingTopology&) = delete;
  PendingTopology& operator=(const PendingTopology&) = delete;
  PendingTopology(PendingTopology&&) = delete;
  PendingTopology& operator=(PendingTopology&&) = delete;
  ~PendingTopology() {
    if (topology_ != nullptr) {
      hwloc_topology_destroy(topology_);
    }
  }
  [[nodiscard]] hwloc_topology_t get() const noexcept { return topology_; }
  [[nodiscard]] hwloc_topology_t release() noexcept { return std::exchange(topology_, nullptr); }

 private:
  hwloc_topology_t topology_ = nullptr;
};

}  // namespace

HwlocTopology HwlocTopology::load_this_machine() {
  PendingTopology pending;
  // Linux's own backend reads the PCI tree from sysfs, which is all the
  // locality needs. The libpciaccess plugin adds only vendor names, leaks
  // memory on every load (LeakSanitizer) and is slower.
  (void)hwloc_topology_set_components(pending.get(), HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
                                      "pci");
  if (hwloc_topology_load(pending.get()) != 0) {
    throw Error("hwloc_topology_load", -errno,
                fmt::format("hwloc could not read this machine's topology: {}", errno_text(errno)));
  }
  return {pending.release(), true, "this machine"};
}

HwlocTopology HwlocTopology::load_xml(const std::string& path, const std::string& input) {
  struct stat info {};
  if (path.empty() || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw ConfigError(input, path,
                      fmt::format("expected an hwloc XML topology file ({})",
                                  path.empty() ? "the path is empty" : errno_text(errno)));
  }
  PendingTopology pending;
  if (hwloc_topology_set_xml(pending.get(), path.c_str()) != 0 ||
      hwloc_topology_load(pending.get()) != 0) {
    throw ConfigError(input, path,
                      "expected an hwloc XML topology file that hwloc can parse (as written by "
                      "`lstopo-no-graphics --of xml`)");
  }
  return {pending.release(), false, path};
}

HwlocTopology HwlocTopology::from_environment() {
  if (const auto path = env::get("RAILYARD_TOPOLOGY")) {
    return load_xml(*path, "RAILYARD_TOPOLOGY");
  }
  return load_this_machine();
}

HwlocTopology::HwlocTopology(HwlocTopology&& other) noexcept
    : topology_(std::exchange(other.topology_, nullptr)),
      this_machine_(other.this_machine_),
      origin_(std::move(other.origin_)) {}

HwlocTopology& HwlocTopology::operator=(HwlocTopology&& other) noexcept {
  if (this != &other) {
    if (topology_ != nullptr) {
      hwloc_topology_destroy(topology_);
    }
    topology_ = std::exchange(other.topology_, nullptr);
    this_machine_ = other.this_machine_;
    origin_ = std::move(other.origin_);
  }
  return *this;
}

HwlocTopology::~HwlocTopology() {
  if (topology_ != nullptr) {
    hwloc_topology_destroy(topology_);
  }
}

}  // namespace railyard::topology
