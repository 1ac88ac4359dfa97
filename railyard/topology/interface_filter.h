// RAILYARD_NET_IFACES: which interfaces may carry rails. One syntax, NCCL's
// NCCL_SOCKET_IFNAME one: a comma list of name prefixes ("eth,ib"); a
// leading '^' turns it into a list to exclude ("^docker,virbr"); a leading
// '=' (after the '^', if any) matches whole names only ("=eth0,eth2").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "railyard/topology/nic.h"

namespace railyard::topology {

class InterfaceFilter {
 public:
  // Throws ConfigError naming `input` for an empty list or an empty entry.
  [[nodiscard]] static InterfaceFilter parse(std::string_view text,
                                             std::string_view input = "RAILYARD_NET_IFACES");

  [[nodiscard]] bool matches(std::string_view name) const;
  // The NICs it lets through; throws ConfigError listing the NICs that
  // exist when it lets none through.
  [[nodiscard]] std::vector<Nic> apply(const std::vector<Nic>& nics) const;
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  std::string input_;
  std::string text_;
  std::vector<std::string> names_;
  bool exclude_ = false;
  bool exact_ = false;
};

}  // namespace railyard::topology
