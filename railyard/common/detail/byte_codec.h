// Little-endian encoding of wire structures. Every railyard wire format is
// built with ByteWriter and read with ByteReader, so byte order and bounds
// checks live in one place.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

// Stores the low `size` bytes (at most 8) of `value` at `out`, least
// significant first: for fixed layouts written in place on hot paths. On a
// little-endian host that is the value's own first bytes, one store once
// inlined with a constant size.
inline void store_le(std::byte* out, std::uint64_t value, std::size_t size) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, &value, size);
  } else {
    for (std::size_t i = 0; i < size; ++i) {
      out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFFU);
    }
  }
}

// The `size`-byte (at most 8) little-endian value at `in`; the caller has
// checked the bounds (fixed layouts read in place on hot paths).
inline std::uint64_t load_le(const std::byte* in, std::size_t size) noexcept {
  std::uint64_t value = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&value, in, size);
  } else {
    for (std::size_t i = 0; i < size; ++i) {
      value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
    }
  }
  return value;
}

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::byte>& out) : out_(out) {}

  void u8(std::uint64_t value) { put(value, 1); }
  void u16(std::uint64_t value) { put(value, 2); }
  void u32(std::uint64_t value) { put(value, 4); }
  void u64(std::uint64_t value) { put(value, 8); }
  void bytes(std::span<const std::byte> data) { out_.insert(out_.end(), data.begin(), data.end()); }
  // A u16 length followed by the characters.
  void string16(std::string_view text) {
    u16(text.size());
    bytes(std::as_bytes(std::span(text.data(), text.size())));
  }
  // A u16 length followed by the bytes.
  void blob16(std::span<const std::byte> data) {
    u16(data.size());
    bytes(data);
  }

 private:
  void put(std::uint64_t value, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      out_.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xFFU));
    }
  }
  std::vector<std::byte>& out_;
};

// Reads fields in order. Reading past the end yields zeros and sets failed(),
// so a decoder checks once after reading a structure.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}

  std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  std::uint64_t u64() { return get(8); }
  std::span<const std::byte> bytes(std::size_t size) {
    if (!has(size)) {
      return {};
    }
    auto out = in_.subspan(offset_, size);
    offset_ += size;
    return out;
  }
  std::string string16() {
    const auto data = bytes(u16());
    return {reinterpret_cast<const char*>(data.data()), data.size()};
  }
  std::vector<std::byte> blob16() {
    const auto data = bytes(u16());
    return {data.begin(), data.end()};
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - offset_; }

 private:
  bool has(std::size_t size) {
    if (failed_ || size > in_.size() - offset_) {
      failed_ = true;
      return false;
    }
    return true;
  }
  std::uint64_t get(std::size_t size) {
    if (!has(size)) {
      return 0;
    }
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < size; ++i) {
      value |= static_cast<std::uint64_t>(in_[offset_ + i]) << (8 * i);
    }
    offset_ += size;
    return value;
  }

  std::span<const std::byte> in_;
  std::size_t offset_ = 0;
  bool failed_ = false;
};

}  // namespace railyard
