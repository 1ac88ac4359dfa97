#include "bad_input.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <exception>
#include <list>
#include <string>
#include <vector>

#include "child_output.h"
#include "scoped_env.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace railyard::testing {

std::string refusal_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& error) {
    return error.what();
  }
  return {};
}

std::string refusal_with(const Variables& variables, const std::function<void()>& call) {
  std::list<ScopedEnv> set;  // ScopedEnv does not move: a list keeps each in place
  for (const auto& [name, value] : variables) {
    set.emplace_back(name.c_str(), value ? value->c_str() : nullptr);
  }
  return refusal_of(call);
}

BadInput variable(std::string kind, const std::string& name, const std::string& value,
                  std::string expected, std::function<void()> read, Variables also) {
  also.emplace_back(name, value);
  return BadInput{.kind = std::move(kind),
                  .input = name,
                  .value = value,
                  .expected = std::move(expected),
                  .refuse = [also = std::move(also),
                             read = std::move(read)] { return refusal_with(also, read); },
                  .input_in_message = {},
                  .value_in_message = {},
                  .secret = {}};
}

BadInput shown_as(BadInput input, std::string value, std::string in_message) {
  input.value = std::move(value);
  input.value_in_message = std::move(in_message);
  return input;
}

BadInput named_as(BadInput input, std::string in_message) {
  input.input_in_message = std::move(in_message);
  return input;
}

BadInput secret(BadInput input, std::string value, std::string in_message) {
  std::string real = input.value;
  input = shown_as(std::move(input), std::move(value), std::move(in_message));
  input.secret = std::move(real);
  return input;
}

namespace {

ChildOutput run_tool(const std::string& tool, const std::vector<std::string>& arguments,
                     const std::vector<std::string>& variables) {
  std::vector<std::string> argv_text{tool};
  argv_text.insert(argv_text.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  argv.reserve(argv_text.size() + 1);
  for (auto& word : argv_text) {
    argv.push_back(word.data());
  }
  argv.push_back(nullptr);
  std::vector<std::string> environment_text;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    environment_text.emplace_back(*entry);
  }
  environment_text.insert(environment_text.end(), variables.begin(), variables.end());
  std::vector<char*> environment;
  environment.reserve(environment_text.size() + 1);
  for (auto& entry : environment_text) {
    environment.push_back(entry.data());
  }
  environment.push_back(nullptr);

  std::array<int, 2> out{};
  std::array<int, 2> err{};
  if (::pipe(out.data()) != 0 || ::pipe(err.data()) != 0) {
    return ChildOutput{.status = -1, .out = {}, .err = "pipe failed"};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::close(out[0]);
    ::close(err[0]);
    ::execve(argv[0], argv.data(), environment.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  return collect_child(pid, out[0], err[0], std::chrono::seconds(30));
}

}  // namespace

std::string tool_refusal(const std::string& tool, const std::vector<std::string>& arguments,
                         const std::vector<std::string>& variables) {
  ChildOutput output = run_tool(tool, arguments, variables);
  return output.status == 0 ? std::string() : std::move(output.err);
}

}  // namespace railyard::testing
