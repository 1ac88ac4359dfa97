// libfabric's ofi_mrail provider reads FI_OFI_MRAIL_ADDR, railyard's rail
// list, in every fi_getinfo it takes part in (those naming no provider, and
// those naming a core provider it layers over, such as net), and libfabric
// 1.17 frees twice and aborts when an entry after the first does not
// convert ("lo,eth9", "lo,127.0.0.1:5000", a trailing comma). So every
// fi_getinfo railyard makes checks the variable first.
#pragma once

namespace railyard::fabric::detail {

// Throws ConfigError naming FI_OFI_MRAIL_ADDR (or FI_OFI_MRAIL_ADDR_STRC,
// which ofi_mrail reads when the first is unset) and the first entry that
// ofi_mrail could not convert: an interface with an IPv4 address, a host
// name or address without a port, or an fi_sockaddr_in(6):// address. A
// single entry passes (ofi_mrail fails cleanly on its first). The verdict
// on a value is kept: the check costs no lookups after the first.
void check_ofi_mrail_addresses();

}  // namespace railyard::fabric::detail
