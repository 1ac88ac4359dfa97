// Bad values of the variables the transports read: rails, the multi-rail
// layer, rstream channels and the rail mapping.
#include <string>
#include <vector>

#include "bad_input.h"
#include "railyard/mrail/options.h"
#include "railyard/mrail/policy_table.h"
#include "railyard/mrail/rail_addresses.h"
#include "railyard/rail/rail.h"
#include "railyard/rail/rail_options.h"
#include "railyard/rail/wait_policy.h"
#include "railyard/rstream/channel_options.h"
#include "railyard/topology/hwloc_topology.h"
#include "railyard/topology/rail_mapping.h"

namespace railyard::testing {
namespace {

void read_rail() { (void)rail::RailOptions::from_environment(); }
void open_rail() {
  rail::RailOptions options = rail::RailOptions::from_environment();
  options.address = "127.0.0.1";
  const rail::Rail rail(options);
}
void read_post_timeout() { (void)rail::post_timeout_from_environment(); }
void read_wait() { (void)rail::WaitPolicy::from_environment(); }
void read_mrail() {
  (void)mrail::Options::from_environment(mrail::RailChoice{{"127.0.0.1"}, 0, {}});
}
void read_table() { (void)mrail::PolicyTable::from_environment(); }
void read_addresses() { (void)mrail::rail_addresses_from_environment(); }
void read_channel() { (void)rstream::ChannelOptions::from_environment(); }
void read_mapping() { (void)topology::MappingOptions::from_environment(); }
void read_topology() { (void)topology::HwlocTopology::from_environment(); }

}  // namespace

std::vector<BadInput> transport_variables() {
  constexpr const char* kRails = "Environment: rails and the multi-rail layer";
  constexpr const char* kChannels = "Environment: rstream channels";
  constexpr const char* kMapping = "Environment: rail mapping";
  std::vector<BadInput> inputs{
      variable(kRails, "RAILYARD_PROVIDER", "tcp ofi_rxm", "without spaces", read_rail),
      // Refused when a rail opens, by the provider's name alone.
      named_as(variable(kRails, "RAILYARD_PROVIDER", "carrier-pigeon",
                        "providers offering FI_EP_RDM here", open_rail),
               "no libfabric provider is named"),
      variable(kRails, "RAILYARD_POST_TIMEOUT_MS", "0", "expected an integer from 1 to 3600000",
               read_post_timeout),
      variable(kRails, "RAILYARD_POST_TIMEOUT_MS", "10s", "expected an integer from 1 to 3600000",
               read_post_timeout),
      variable(kRails, "RAILYARD_SPIN_US", "-1", "expected an integer from 0 to 1000000",
               read_wait),
      variable(kRails, "RAILYARD_SPIN_US", "2000000", "expected an integer from 0 to 1000000",
               read_wait),
      variable(kRails, "RAILYARD_SPIN_YIELD", "sometimes", "expected auto, on or off", read_wait),
      variable(kRails, "FI_OFI_MRAIL_CONFIG", "1024:fast",
               "unknown policy 'fast' (expected fixed, round-robin or striping)", read_table),
      variable(kRails, "FI_OFI_MRAIL_CONFIG", "4096:fixed,1024:striping",
               "sizes must strictly ascend", read_table),
      variable(kRails, "FI_OFI_MRAIL_CONFIG", "lots:fixed", "is not a byte count, ULONG_MAX or -1",
               read_table),
      variable(kRails, "FI_OFI_MRAIL_CONFIG", "1024fixed", "missing ':' between size and policy",
               read_table),
      variable(kRails, "FI_OFI_MRAIL_CONFIG", "1024:fixed,,ULONG_MAX:striping", "empty entry",
               read_table),
      variable(kRails, "FI_OFI_MRAIL_CONFIG",
               "1:fixed,2:fixed,3:fixed,4:fixed,5:fixed,6:fixed,7:fixed,8:fixed,9:fixed,10:fixed,"
               "11:fixed,12:fixed,13:fixed,14:fixed,15:fixed,16:fixed,17:fixed",
               "at most 16", read_table),
      variable(kRails, "FI_OFI_MRAIL_ADDR", "127.0.0.1,,127.0.0.2",
               "expected a comma list of rail addresses without empty entries", read_addresses),
      variable(kRails, "FI_OFI_MRAIL_ADDR", "127.0.0.1,127.0.0.1", "each rail needs its own",
               read_addresses),
      variable(kRails, "FI_OFI_MRAIL_ADDR", "nosuchnic0",
               "is not an interface of this host, an IP address or a resolvable host name",
               read_addresses),
      variable(kRails, "FI_OFI_MRAIL_ADDR", "198.18.250.1",
               "is not an address of this host (its interfaces:", read_addresses),
      variable(kRails, "RAILYARD_MIN_CHUNK", "0", "at least 1 byte", read_mrail),
      variable(kRails, "RAILYARD_RAIL_WEIGHTS", "1,-2", "expected one positive weight per rail",
               read_mrail),
      variable(kRails, "RAILYARD_RAIL_WEIGHTS", "1,,2", "'' is not a positive number", read_mrail),
      variable(kRails, "RAILYARD_EAGER_LIMIT", "128m", "expected a size up to 67108864 (64m)",
               read_mrail),
      variable(kRails, "RAILYARD_PULL_CHUNK", "1k",
               "expected 0 (one read per path) or a size of at least 4k", read_mrail),
      variable(kRails, "RAILYARD_PULL_DEPTH", "0", "expected an integer from 1 to 64", read_mrail),
      variable(kRails, "RAILYARD_PULL_DEPTH", "65", "expected an integer from 1 to 64", read_mrail),
      variable(kRails, "RAILYARD_FRAGMENT_SIZE", "512", "expected a size from 1k to 16m",
               read_mrail),
      variable(kRails, "RAILYARD_FRAGMENT_SIZE", "32m", "expected a size from 1k to 16m",
               read_mrail),
      variable(kRails, "RAILYARD_UNEXPECTED_PEER_BYTES", "lots",
               "expected a byte count such as 4096", read_mrail),
      variable(kRails, "RAILYARD_UNEXPECTED_BYTES", "1x", "expected a byte count such as 4096",
               read_mrail),
      variable(kRails, "RAILYARD_BACKGROUND_PROGRESS", "2", "expected an integer from 0 to 1",
               read_mrail),
      variable(kRails, "RAILYARD_RAIL_TIMEOUT", "50ms", "or a duration from 100 ms to 1 h",
               read_mrail),
      variable(kRails, "RAILYARD_RAIL_TIMEOUT", "2 days", "expected 0 (failover off) or a duration",
               read_mrail),
      variable(kRails, "RAILYARD_RAIL_RETRY", "0", "from 100 ms to 1 h", read_mrail),
      variable(kRails, "RAILYARD_MR_CACHE", "sometimes", "expected auto, on or off", read_mrail),
      variable(kChannels, "RAILYARD_RSTREAM_PROVIDER", "tcp;ofi_rxm",
               "expected one libfabric core provider offering FI_EP_MSG endpoints", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_SEND_BUFFER", "1k", "from 4096 to 268435456",
               read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_RECEIVE_BUFFER", "1g", "from 4096 to 268435456",
               read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_SEND_BUFFER_MAX", "big",
               "expected a byte count such as 4096", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_RECEIVE_BUFFER_MAX", "0", "from 4096 to 268435456",
               read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_SEND_QUEUE", "8",
               "expected an integer from 16 to 65535", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_RECEIVE_QUEUE", "70000",
               "expected an integer from 16 to 65535", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_INLINE", "8k", "from 0 to 4096", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_POLLING_TIME_US", "-5",
               "expected an integer from 0 to 1000000", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_WAKE_UP_INTERVAL_MS", "0",
               "expected an integer from 1 to 3600000", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_KEEPALIVE", "100000",
               "expected an integer from 1 to 86400", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_BACKGROUND_PROGRESS", "yes",
               "expected an integer from 0 to 1", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_CONNECT_TIMEOUT_MS", "0",
               "expected an integer from 1 to 3600000", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_SHUTDOWN_TIMEOUT_MS", "forever",
               "expected an integer from 1 to 3600000", read_channel),
      variable(kChannels, "RAILYARD_RSTREAM_IOMAP_SIZE", "2000",
               "expected an integer from 0 to 1024", read_channel),
      variable(kMapping, "RAILYARD_RAILS", "some", "expected 'nearest', 'all' or a rail count",
               read_mapping),
      variable(kMapping, "RAILYARD_RAILS", "0", "expected an integer from 1 to 64", read_mapping),
      variable(kMapping, "RAILYARD_RAILS", "65", "expected an integer from 1 to 64", read_mapping),
      variable(kMapping, "RAILYARD_NET_IFACES", "",
               "expected a comma list of interface name prefixes", read_mapping),
      variable(kMapping, "RAILYARD_NET_IFACES", "eth,,ib", "entry '' is not an interface name",
               read_mapping),
      variable(kMapping, "RAILYARD_NET_IFACES", "^", "'^' first to exclude them", read_mapping),
      variable(kMapping, "RAILYARD_TOPOLOGY", "/nonexistent/topology.xml",
               "expected an hwloc XML topology file", read_topology),
  };
  return inputs;
}

}  // namespace railyard::testing
