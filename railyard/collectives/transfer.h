// One send or receive a collective posted on its team, owned by the
// collective's task: done() looks without progressing; finish() takes its
// result, throwing the typed error of a failed one.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace railyard::collectives {

class Transfer {
 public:
  // What the team keeps of one transfer in flight. Destroying it before it
  // finished drops the transfer (an unmatched receive is canceled).
  class State {
   public:
    State() = default;
    virtual ~State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    State(State&&) = delete;
    State& operator=(State&&) = delete;

    [[nodiscard]] virtual bool done() noexcept = 0;
    // After done(): the bytes it moved; throws the typed error of a failed
    // transfer.
    virtual std::size_t finish() = 0;
    // The team rank it is with (-1: any), and which way: what a collective
    // that waits too long says it waited for.
    [[nodiscard]] virtual int transfer_peer() const noexcept = 0;
    [[nodiscard]] virtual bool is_receive() const noexcept = 0;
  };

  Transfer() = default;
  explicit Transfer(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}

  // Whether it has finished (an empty or finished one has).
  [[nodiscard]] bool done() const noexcept { return !state_ || state_->done(); }
  // Takes the result of a done transfer; throws what it failed with.
  void finish() {
    if (state_) {
      std::unique_ptr<State> state = std::move(state_);
      bytes_ = state->finish();
    }
  }
  // The bytes a finished transfer moved: a receive's message length.
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  // The one still in flight (null once finished), to say what it waits for.
  [[nodiscard]] const State* in_flight() const noexcept { return state_.get(); }

 private:
  std::unique_ptr<State> state_;
  std::size_t bytes_ = 0;
};

}  // namespace railyard::collectives
