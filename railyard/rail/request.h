// The simplest RailOp: remembers its completion so a caller can wait on it.
#pragma once

#include "railyard/rail/rail_op.h"

namespace railyard::rail {

class Request final : public RailOp {
 public:
  [[nodiscard]] bool done() const noexcept { return done_; }
  // Valid once done().
  [[nodiscard]] const Completion& completion() const noexcept { return completion_; }
  [[nodiscard]] const Status& status() const noexcept { return completion_.status; }

  // Makes a finished request ready to be posted again.
  void reset() noexcept {
    done_ = false;
    completion_ = Completion{};
  }

 protected:
  void on_complete(const Completion& completion) override {
    completion_ = completion;
    done_ = true;
  }

 private:
  Completion completion_;
  bool done_ = false;
};

}  // namespace railyard::rail
