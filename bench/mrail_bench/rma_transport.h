// A railyard multi-rail endpoint moving the bandwidth windows one-sided, as
// osu_put_bw and osu_get_bw do: each window transfer is a put into (or a
// get from) the other side's registered buffer, and a flush ends each wait
// that had some, so a window counts once its bytes are in the peer's memory;
// a message then tells the other side, which waits for it instead of
// receiving. Everything else (the acknowledgements that pace the windows)
// goes as messages.
#pragma once

#include <optional>
#include <vector>

#include "bench_transport.h"
#include "measure.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::bench {

class RmaTransport final : public BenchTransport {
 public:
  RmaTransport(mrail::Options options, RmaMode mode, std::size_t max_size, std::size_t slots);

  // The endpoint's address followed by the buffer's memory key: the peer
  // needs both.
  std::vector<std::byte> address() override;
  void connect(std::span<const std::byte> peer_address) override;
  void post_send(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void post_recv(std::size_t slot, std::size_t size, std::uint64_t tag) override;
  void wait_all(std::chrono::milliseconds timeout) override;
  [[nodiscard]] std::vector<RailBytes> rail_bytes() const override;

 private:
  mrail::Endpoint endpoint_;
  RmaMode mode_;
  std::vector<std::byte> buffer_;
  mrail::MultiRegion region_;
  std::optional<mrail::RemoteMultiRegion> remote_;
  std::vector<mrail::Request> requests_;
  std::vector<std::size_t> posted_;
  bool flush_due_ = false;
  bool window_sent_ = false;     // this side moved a window since its last wait
  bool window_awaited_ = false;  // the other side moves one into or out of this side
  mrail::PeerId peer_;
};

}  // namespace railyard::bench
