// The bootstrap of a job of one rank: a program started without a launcher
// (MPI's singleton init). Its collectives return this rank's own bytes, and
// its store is this process's, which its threads share.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "railyard/bootstrap/bootstrap.h"

namespace railyard::bootstrap {

class SingleBootstrap final : public Bootstrap {
 public:
  explicit SingleBootstrap(std::span<const std::byte> descriptor);
  ~SingleBootstrap() override;
  SingleBootstrap(const SingleBootstrap&) = delete;
  SingleBootstrap& operator=(const SingleBootstrap&) = delete;
  SingleBootstrap(SingleBootstrap&&) = delete;
  SingleBootstrap& operator=(SingleBootstrap&&) = delete;

  [[nodiscard]] int rank() const noexcept override { return 0; }
  [[nodiscard]] int size() const noexcept override { return 1; }
  [[nodiscard]] const char* method() const noexcept override { return "single"; }
  [[nodiscard]] const std::vector<Blob>& descriptors() const noexcept override {
    return descriptors_;
  }
  [[nodiscard]] std::vector<Blob> allgather(std::span<const std::byte> mine,
                                            std::chrono::milliseconds timeout) override;
  [[nodiscard]] Blob broadcast(int root, std::span<const std::byte> data,
                               std::chrono::milliseconds timeout) override;
  // Logs the reason; later calls throw AbortError.
  void abort(int code, const std::string& reason) noexcept override;
  [[nodiscard]] std::optional<JobFailure> failure() const override;
  [[nodiscard]] Store& store() override;

 private:
  class LocalStore;

  std::vector<Blob> descriptors_;
  std::unique_ptr<LocalStore> store_;
};

}  // namespace railyard::bootstrap
