// The subject: a railyard stream channel, with the options from the
// environment (RAILYARD_RSTREAM_*), so they can be varied per run.
#include <stdexcept>

#include <fmt/format.h>

#include "byte_stream.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/listener.h"

namespace railyard::bench {

std::unique_ptr<StreamListener> listen_tcp(const std::string& host);
std::unique_ptr<ByteStream> connect_tcp(const std::string& address);

namespace {

class RstreamStream final : public ByteStream {
 public:
  explicit RstreamStream(rstream::Channel channel) : channel_(std::move(channel)) {}
  void send_all(std::span<const std::byte> data) override {
    const rstream::IoResult r = channel_.send(data);
    if (!r.ok()) {
      throw std::runtime_error("rstream send: " + r.status.to_string());
    }
  }
  void receive_all(std::span<std::byte> out) override {
    const rstream::IoResult r = channel_.receive_all(out);
    if (!r.ok() || r.bytes != out.size()) {
      throw std::runtime_error(r.ok()
                                   ? std::string("rstream receive: the peer ended the stream early")
                                   : "rstream receive: " + r.status.to_string());
    }
  }

 private:
  rstream::Channel channel_;
};

class RstreamListener final : public StreamListener {
 public:
  explicit RstreamListener(const std::string& host)
      : listener_(fmt::format("{}:0", host), rstream::ChannelOptions::from_environment()),
        host_(host) {}
  [[nodiscard]] std::string address() const override {
    return fmt::format("{}:{}", host_, listener_.port());
  }
  [[nodiscard]] std::unique_ptr<ByteStream> accept() override {
    auto channel = listener_.accept(std::chrono::seconds(30));
    if (!channel) {
      throw std::runtime_error("rstream: no connection within 30 s");
    }
    return std::make_unique<RstreamStream>(std::move(*channel));
  }

 private:
  rstream::Listener listener_;
  std::string host_;
};

}  // namespace

const char* to_string(StreamKind kind) { return kind == StreamKind::kTcp ? "tcp" : "rstream"; }

std::unique_ptr<StreamListener> listen(StreamKind kind, const std::string& host) {
  if (kind == StreamKind::kTcp) {
    return listen_tcp(host);
  }
  return std::make_unique<RstreamListener>(host);
}

std::unique_ptr<ByteStream> connect(StreamKind kind, const std::string& address) {
  if (kind == StreamKind::kTcp) {
    return connect_tcp(address);
  }
  return std::make_unique<RstreamStream>(rstream::Channel::connect(address));
}

}  // namespace railyard::bench
