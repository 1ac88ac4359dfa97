// Which rail-sharing policy applies to a message of a given size: the
// FI_OFI_MRAIL_CONFIG table, in ofi_mrail's grammar but parsed strictly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railyard::mrail {

enum class Policy {
  kFixed,       // the whole message on the sender's home rail
  kRoundRobin,  // the whole message on the next rail, rotating per peer
  kStriping,    // the message split across every usable rail
};

[[nodiscard]] const char* to_string(Policy policy) noexcept;

class PolicyTable {
 public:
  struct Entry {
    std::uint64_t max_size;  // inclusive; UINT64_MAX means unlimited
    Policy policy;
  };

  static constexpr std::size_t kMaxEntries = 16;
  static constexpr const char* kVariable = "FI_OFI_MRAIL_CONFIG";
  // Small messages stay on the home rail, medium ones go to the next rail
  // in turn, large ones are striped. ofi_mrail's default,
  // 16384:fixed,ULONG_MAX:striping, keeps medium messages on one rail, whose
  // rate then caps a stream of them and a ping-pong alike; below 1 KiB
  // round-robin only costs (docs/benchmarks.md, "Tuning choices").
  static constexpr const char* kDefault = "1024:fixed,16384:round-robin,ULONG_MAX:striping";

  // The default table, kDefault.
  PolicyTable();

  // Parses "<max_size>:<policy>[,<max_size>:<policy>...]". Sizes are decimal
  // with optional binary suffixes (64k, 1m), or ULONG_MAX / -1 for unlimited;
  // they must strictly ascend. Policies are fixed, round-robin or striping in
  // any case. Spaces around entries and around ':' are ignored. The last entry
  // covers every larger size too, as in ofi_mrail. Anything else (an unknown
  // policy, a missing size or policy, sizes out of order or repeated, trailing
  // junk, overflow, empty entries, more than kMaxEntries) throws ConfigError
  // naming `input`, the entry and the expected form.
  [[nodiscard]] static PolicyTable parse(std::string_view input, std::string_view text);

  // FI_OFI_MRAIL_CONFIG when set, else the default.
  [[nodiscard]] static PolicyTable from_environment();

  [[nodiscard]] Policy policy_for(std::uint64_t size) const noexcept;
  [[nodiscard]] const std::vector<Entry>& entries() const noexcept { return entries_; }

  // "0-16384 fixed, 16385+ striping": the effective ranges, for the log.
  [[nodiscard]] std::string describe() const;

 private:
  explicit PolicyTable(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  std::vector<Entry> entries_;
};

}  // namespace railyard::mrail
