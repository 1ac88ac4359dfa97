#include "railyard/fabric/event_queue.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include <array>
#include <cstring>

#include "railyard/common/detail/log.h"
#include "railyard/common/error.h"

namespace railyard::fabric {
namespace {

// Connection data a provider passes with an event is at most a few hundred
// bytes (FI_OPT_CM_DATA_SIZE); this leaves room for any of them.
constexpr std::size_t kMaxEventData = 1024;

}  // namespace

EventQueue::EventQueue(const Fabric& fabric) {
  static constexpr std::array<fi_wait_obj, 3> kChoices{FI_WAIT_FD, FI_WAIT_UNSPEC, FI_WAIT_NONE};
  int last_rc = 0;
  for (const fi_wait_obj choice : kChoices) {
    fi_eq_attr attr{};
    attr.size = 64;
    attr.wait_obj = choice;
    fid_eq* raw = nullptr;
    last_rc = fi_eq_open(fabric.get(), &attr, &raw, nullptr);
    if (last_rc != 0) {
      log::debug("fi_eq_open with wait object {} refused: {}", static_cast<int>(choice),
                 fi_strerror(-last_rc));
      continue;
    }
    handle_ = FidHandle<fid_eq>(raw, "event queue");
    if (choice == FI_WAIT_FD && fi_control(&raw->fid, FI_GETWAIT, &wait_fd_) != 0) {
      wait_fd_ = -1;
    }
    return;
  }
  check_fabric(last_rc, "fi_eq_open", "opening an event queue (tried fd, provider and none)");
}

std::optional<ConnectionEvent> EventQueue::read() {
  alignas(fi_eq_cm_entry) std::array<std::byte, sizeof(fi_eq_cm_entry) + kMaxEventData> buffer{};
  std::uint32_t type = 0;
  const ssize_t rc = fi_eq_read(handle_.get(), &type, buffer.data(), buffer.size(), 0);
  if (rc == -FI_EAGAIN) {
    return std::nullopt;
  }
  ConnectionEvent event;
  if (rc == -FI_EAVAIL) {
    fi_eq_err_entry entry{};
    const ssize_t err_rc = fi_eq_readerr(handle_.get(), &entry, 0);
    if (err_rc < 0) {
      check_fabric(static_cast<int>(err_rc), "fi_eq_readerr", "reading a connection error");
    }
    event.fid = entry.fid;
    event.error = entry.err;
    const char* text = fi_eq_strerror(handle_.get(), entry.prov_errno, entry.err_data, nullptr, 0);
    event.error_text = text != nullptr ? text : fi_strerror(entry.err);
    return event;
  }
  if (rc < 0) {
    check_fabric(static_cast<int>(rc), "fi_eq_read", "reading a connection event");
  }
  event.type = type;
  if (static_cast<std::size_t>(rc) >= sizeof(fi_eq_cm_entry) &&
      (type == FI_CONNREQ || type == FI_CONNECTED || type == FI_SHUTDOWN)) {
    fi_eq_cm_entry entry{};
    std::memcpy(&entry, buffer.data(), sizeof(entry));
    event.fid = entry.fid;
    if (type == FI_CONNREQ) {
      event.info = FabricInfo(entry.info);
    }
    const auto data_length = static_cast<std::size_t>(rc) - sizeof(fi_eq_cm_entry);
    const auto* data = buffer.data() + sizeof(fi_eq_cm_entry);
    event.data.assign(data, data + data_length);
  } else if (static_cast<std::size_t>(rc) >= sizeof(fi_eq_entry)) {
    fi_eq_entry entry{};
    std::memcpy(&entry, buffer.data(), sizeof(entry));
    event.fid = entry.fid;
  }
  return event;
}

const char* event_name(std::uint32_t type) noexcept {
  switch (type) {
    case FI_CONNREQ:
      return "FI_CONNREQ";
    case FI_CONNECTED:
      return "FI_CONNECTED";
    case FI_SHUTDOWN:
      return "FI_SHUTDOWN";
    case FI_NOTIFY:
      return "FI_NOTIFY";
    case FI_MR_COMPLETE:
      return "FI_MR_COMPLETE";
    case FI_AV_COMPLETE:
      return "FI_AV_COMPLETE";
    case FI_JOIN_COMPLETE:
      return "FI_JOIN_COMPLETE";
    default:
      return "unknown event";
  }
}

}  // namespace railyard::fabric
