// Unique ownership of one libfabric object (anything with an embedded `fid`).
#pragma once

#include <rdma/fabric.h>

#include <utility>

namespace railyard::fabric {

// Closes the fid when the last owner goes away. fi_close failures at teardown
// cannot be acted on, so they are logged rather than thrown from a destructor.
void close_fid(fid* handle, const char* what) noexcept;

template <typename T>
class FidHandle {
 public:
  FidHandle() = default;
  FidHandle(T* raw, const char* what) : raw_(raw), what_(what) {}
  ~FidHandle() { reset(); }

  FidHandle(const FidHandle&) = delete;
  FidHandle& operator=(const FidHandle&) = delete;
  FidHandle(FidHandle&& other) noexcept
      : raw_(std::exchange(other.raw_, nullptr)), what_(other.what_) {}
  FidHandle& operator=(FidHandle&& other) noexcept {
    if (this != &other) {
      reset();
      raw_ = std::exchange(other.raw_, nullptr);
      what_ = other.what_;
    }
    return *this;
  }

  [[nodiscard]] T* get() const noexcept { return raw_; }
  [[nodiscard]] fid* as_fid() const noexcept { return raw_ == nullptr ? nullptr : &raw_->fid; }
  explicit operator bool() const noexcept { return raw_ != nullptr; }

  void reset() noexcept {
    if (raw_ != nullptr) {
      close_fid(&raw_->fid, what_);
      raw_ = nullptr;
    }
  }

 private:
  T* raw_ = nullptr;
  const char* what_ = "fid";
};

}  // namespace railyard::fabric
