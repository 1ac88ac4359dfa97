// Exceptions thrown by railyard's setup paths. The data path never throws: it
// completes requests with a railyard::Status instead.
#pragma once

#include <stdexcept>
#include <string>

namespace railyard {

// Base of every exception railyard throws. When a libfabric (or other C) call
// failed, call() names it and code() holds its return value (negative errno
// for libfabric); otherwise call() is empty and code() is 0.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  Error(std::string call, int code, const std::string& message);

  [[nodiscard]] const std::string& call() const noexcept { return call_; }
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  std::string call_;
  int code_ = 0;
};

// A libfabric call failed. The message reads
//   "<call> failed: <fi_strerror(-rc)> (<rc>): <context>".
class FabricError : public Error {
 public:
  FabricError(const std::string& call, int rc, const std::string& context);
};

// An input from outside (environment variable, option, address, command-line
// flag) was invalid. input() names it, value() is what was given, and the
// message says what was expected.
class ConfigError : public Error {
 public:
  ConfigError(std::string input, std::string value, const std::string& expected);

  [[nodiscard]] const std::string& input() const noexcept { return input_; }
  [[nodiscard]] const std::string& value() const noexcept { return value_; }
  // What was expected instead: the message after "is invalid: ".
  [[nodiscard]] const std::string& expected() const noexcept { return expected_; }

 private:
  std::string input_;
  std::string value_;
  std::string expected_;
};

// Throws FabricError when a libfabric call returned a negative value.
inline void check_fabric(int rc, const char* call, const std::string& context) {
  if (rc < 0) {
    throw FabricError(call, rc, context);
  }
}

}  // namespace railyard
