#include "railyard/comm/detail/host_machine.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "railyard/topology/hwloc_topology.h"

namespace railyard::comm::detail {
namespace {

// Smallest encodings, to refuse a count the bytes left cannot hold before
// reserving memory for it.
constexpr std::size_t kCpuBytes = 4;
constexpr std::size_t kMinGroupBytes = 8;   // os index, cpu count
constexpr std::size_t kMinStringBytes = 2;  // length
constexpr std::size_t kMinListBytes = 4;    // count
// Four strings, two lists, flags, speed, address count.
constexpr std::size_t kMinNicBytes = 4 * kMinStringBytes + 2 * kMinListBytes + 1 + 8 + 2;

// Bits of a NIC's flags byte.
constexpr std::uint8_t kUp = 1U << 0U;
constexpr std::uint8_t kLoopback = 1U << 1U;
constexpr std::uint8_t kVirtualDevice = 1U << 2U;
constexpr std::uint8_t kHasNetdev = 1U << 3U;
constexpr std::uint8_t kHasSpeed = 1U << 4U;

void put_list(ByteWriter& writer, const std::vector<unsigned>& values) {
  writer.u32(values.size());
  for (const unsigned value : values) {
    writer.u32(value);
  }
}

void put_groups(ByteWriter& writer, const std::vector<topology::CpuGroup>& groups) {
  writer.u32(groups.size());
  for (const auto& group : groups) {
    writer.u32(group.os_index);
    put_list(writer, group.cpus);
  }
}

// Decoding: each reader stops at the first fault and names it.
class LayoutReader {
 public:
  LayoutReader(ByteReader& reader, std::string& error) : reader_(reader), error_(error) {}

  [[nodiscard]] bool ok() const { return error_.empty() && !reader_.failed(); }

  // A count of items at least `item_bytes` long each.
  std::uint32_t count(std::size_t item_bytes, const char* what) {
    const std::uint32_t n = reader_.u32();
    if (ok() && n > reader_.remaining() / item_bytes) {
      error_ = fmt::format("{} {} in {} bytes", n, what, reader_.remaining());
      return 0;
    }
    return ok() ? n : 0;
  }

  std::vector<unsigned> list(const char* what) {
    std::vector<unsigned> out(count(kCpuBytes, what));
    for (auto& value : out) {
      value = reader_.u32();
    }
    return out;
  }

  std::vector<topology::CpuGroup> groups(const char* what) {
    std::vector<topology::CpuGroup> out(count(kMinGroupBytes, what));
    for (auto& group : out) {
      group.os_index = reader_.u32();
      group.cpus = list("CPUs");
    }
    return out;
  }

  std::vector<topology::Nic> nics() {
    std::vector<topology::Nic> out(count(kMinNicBytes, "NICs"));
    for (auto& nic : out) {
      nic.name = reader_.string16();
      nic.openfabrics = reader_.string16();
      nic.pci_bus_id = reader_.string16();
      nic.pci_device = reader_.string16();
      nic.numa_nodes = list("NUMA nodes");
      nic.packages = list("packages");
      const std::uint8_t flags = reader_.u8();
      const std::uint64_t speed = reader_.u64();
      if ((flags & kHasSpeed) != 0) {
        nic.speed_mbps = speed;
      }
      nic.up = (flags & kUp) != 0;
      nic.loopback = (flags & kLoopback) != 0;
      nic.virtual_device = (flags & kVirtualDevice) != 0;
      nic.has_netdev = (flags & kHasNetdev) != 0;
      nic.addresses.resize(reader_.u16());
      for (auto& address : nic.addresses) {
        address = reader_.string16();
      }
      if (ok() && nic.name.empty()) {
        error_ = "a NIC without a name";
      }
    }
    return out;
  }

 private:
  ByteReader& reader_;
  std::string& error_;
};

}  // namespace

HostMachine read_host_machine() {
  const auto topology = topology::HwlocTopology::from_environment();
  HostMachine machine;
  machine.layout = topology::describe_machine(topology);
  machine.this_machine = topology.is_this_machine();
  return machine;
}

void encode(ByteWriter& writer, const HostMachine& machine) {
  const auto& layout = machine.layout;
  writer.u8(machine.this_machine ? 1 : 0);
  writer.string16(layout.origin);
  put_groups(writer, layout.numa_nodes);
  put_groups(writer, layout.packages);
  put_list(writer, layout.cpus);
  writer.u32(layout.nics.size());
  for (const auto& nic : layout.nics) {
    writer.string16(nic.name);
    writer.string16(nic.openfabrics);
    writer.string16(nic.pci_bus_id);
    writer.string16(nic.pci_device);
    put_list(writer, nic.numa_nodes);
    put_list(writer, nic.packages);
    unsigned flags = 0;
    flags |= nic.up ? kUp : 0U;
    flags |= nic.loopback ? kLoopback : 0U;
    flags |= nic.virtual_device ? kVirtualDevice : 0U;
    flags |= nic.has_netdev ? kHasNetdev : 0U;
    flags |= nic.speed_mbps ? kHasSpeed : 0U;
    writer.u8(flags);
    writer.u64(nic.speed_mbps.value_or(0));
    const std::size_t addresses =
        std::min<std::size_t>(nic.addresses.size(), std::numeric_limits<std::uint16_t>::max());
    writer.u16(addresses);
    for (std::size_t i = 0; i < addresses; ++i) {
      writer.string16(nic.addresses[i]);
    }
  }
}

std::optional<HostMachine> decode_host_machine(ByteReader& reader, std::string& error) {
  LayoutReader fields(reader, error);
  HostMachine machine;
  const std::uint8_t this_machine = reader.u8();
  if (fields.ok() && this_machine > 1) {
    error = fmt::format("a this-machine flag of {}", this_machine);
  }
  machine.this_machine = this_machine == 1;
  machine.layout.origin = reader.string16();
  machine.layout.numa_nodes = fields.groups("NUMA nodes");
  machine.layout.packages = fields.groups("packages");
  machine.layout.cpus = fields.list("CPUs");
  machine.layout.nics = fields.nics();
  if (!fields.ok()) {
    if (error.empty()) {
      error = "the machine layout ends early";
    }
    return std::nullopt;
  }
  return machine;
}

}  // namespace railyard::comm::detail
