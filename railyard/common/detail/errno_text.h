// The text of an errno value, safe to call from any thread (strerror is
// not).
#pragma once

#include <array>
#include <cstring>
#include <string>

namespace railyard {

inline std::string errno_text(int error) {
  std::array<char, 256> buffer{};
  // The GNU strerror_r returns the message, in `buffer` or a static string.
  return ::strerror_r(error, buffer.data(), buffer.size());
}

}  // namespace railyard
