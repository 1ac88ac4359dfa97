// The two things the benchmark compares, behind one blocking interface: a
// railyard stream channel and a plain TCP socket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace railyard::bench {

class ByteStream {
 public:
  ByteStream() = default;
  virtual ~ByteStream() = default;
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;
  ByteStream(ByteStream&&) = delete;
  ByteStream& operator=(ByteStream&&) = delete;
  // Both throw std::runtime_error naming the subject on failure.
  virtual void send_all(std::span<const std::byte> data) = 0;
  virtual void receive_all(std::span<std::byte> out) = 0;
};

class StreamListener {
 public:
  StreamListener() = default;
  virtual ~StreamListener() = default;
  StreamListener(const StreamListener&) = delete;
  StreamListener& operator=(const StreamListener&) = delete;
  StreamListener(StreamListener&&) = delete;
  StreamListener& operator=(StreamListener&&) = delete;
  // Where a peer connects ("host:port").
  [[nodiscard]] virtual std::string address() const = 0;
  [[nodiscard]] virtual std::unique_ptr<ByteStream> accept() = 0;
};

enum class StreamKind : std::uint8_t { kTcp, kRstream };

[[nodiscard]] const char* to_string(StreamKind kind);
[[nodiscard]] std::unique_ptr<StreamListener> listen(StreamKind kind, const std::string& host);
[[nodiscard]] std::unique_ptr<ByteStream> connect(StreamKind kind, const std::string& address);

}  // namespace railyard::bench
