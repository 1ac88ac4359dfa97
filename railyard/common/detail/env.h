// Reading railyard's environment variables. They are only ever read, never
// modified (the one variable railyard writes, a libfabric setting, is set at
// load by railyard/rail/provider_defaults.h).
//
// libfabric's ofi_mrail provider, initialised by the first fi_getinfo of the
// process (railyard's, Open MPI's, any library's), tokenises
// FI_OFI_MRAIL_CONFIG and FI_OFI_MRAIL_ADDR in place: after it, getenv()
// returns the text up to the first comma. So every RAILYARD_* and
// FI_OFI_MRAIL_* variable is captured when the library is loaded, before any
// libfabric call, and a value found rewritten in place later (same storage,
// other text) is replaced by the captured one, with a warning once per
// variable. A variable the program itself sets, replaces or removes
// (setenv, putenv, unsetenv give it new storage) is taken as it now is, and
// protected from then on if railyard reads it before libfabric rewrites it
// (see protect_from_libfabric).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace railyard::env {

// The variable's value, or nullopt when it is unset. An empty value counts as
// set: callers decide whether empty is meaningful.
[[nodiscard]] std::optional<std::string> get(const char* name);

// The variable's value, or `fallback` when unset.
[[nodiscard]] std::string get_or(const char* name, std::string_view fallback);

// Reads the variables libfabric's ofi_mrail provider rewrites, so that the
// values a program set after the library loaded (setenv before its first
// libfabric call) are the ones protected. railyard calls it before each of
// its fi_getinfo calls; the first one in the process is where ofi_mrail
// rewrites them.
void protect_from_libfabric();

// Whether get() protects `name` against in-place rewrites (RAILYARD_* and
// FI_OFI_MRAIL_*).
[[nodiscard]] bool captured(std::string_view name) noexcept;

}  // namespace railyard::env
