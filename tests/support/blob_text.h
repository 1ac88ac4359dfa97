// Bootstrap blobs made from and read as text, for tests and test jobs.
#pragma once

#include <span>
#include <string>

#include "railyard/bootstrap/bootstrap.h"

namespace railyard::testing {

inline bootstrap::Blob text_blob(const std::string& text) {
  const auto bytes = std::as_bytes(std::span(text));
  return {bytes.begin(), bytes.end()};
}

inline std::string blob_text(const bootstrap::Blob& blob) {
  return {reinterpret_cast<const char*>(blob.data()), blob.size()};
}

}  // namespace railyard::testing
