// The rails a multi-rail endpoint opens: FI_OFI_MRAIL_ADDR, as ofi_mrail
// reads it, but every entry checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard::mrail {

inline constexpr const char* kAddressVariable = "FI_OFI_MRAIL_ADDR";
inline constexpr const char* kDeprecatedAddressVariable = "FI_OFI_MRAIL_ADDR_STRC";

// Splits a comma list of rail addresses and checks each one the way a Rail
// will bind it (interface, IP[:port], host name or FI_ADDR_STR of this host;
// see bind_address.h). Empty entries and two entries naming the same address
// are refused. Throws ConfigError naming `input`, the entry and the problem.
[[nodiscard]] std::vector<std::string> parse_rail_addresses(std::string_view input,
                                                            std::string_view text);

// Whether FI_OFI_MRAIL_ADDR (or FI_OFI_MRAIL_ADDR_STRC) names the rails,
// which then override discovery entirely.
[[nodiscard]] bool rails_named_in_environment();

// FI_OFI_MRAIL_ADDR when set; else FI_OFI_MRAIL_ADDR_STRC, with a deprecation
// warning; else one entry "" (a single rail on the provider's default
// interface).
[[nodiscard]] std::vector<std::string> rail_addresses_from_environment();

}  // namespace railyard::mrail
