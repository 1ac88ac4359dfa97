// Which rails an endpoint opens when its options come from the environment:
// FI_OFI_MRAIL_ADDR's when set (it overrides discovery entirely), else the
// NICs the topology maps to this local rank, nearest first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace railyard::mrail {

struct RailChoice {
  std::vector<std::string> rails;  // entries in FI_OFI_MRAIL_ADDR's grammar
  std::optional<std::size_t> home_rail;
  std::string home_reason;  // why that home rail, for the log
};

// Throws ConfigError for a bad variable (FI_OFI_MRAIL_ADDR, RAILYARD_RAILS,
// RAILYARD_NET_IFACES, RAILYARD_TOPOLOGY ...). When the topology cannot be
// read or holds no usable NIC, warns and falls back to one rail on the
// provider's default interface.
[[nodiscard]] RailChoice rails_from_environment();

}  // namespace railyard::mrail
