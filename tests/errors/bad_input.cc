#include "bad_input.h"

#include <chrono>
#include <exception>
#include <list>
#include <string>
#include <vector>

#include "child_output.h"
#include "scoped_env.h"

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

std::string tool_refusal(const std::string& tool, const std::vector<std::string>& arguments,
                         const Variables& variables) {
  std::vector<std::string> argv{tool};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ChildOutput output = run_program(std::move(argv), variables, std::chrono::seconds(30));
  return output.status == 0 ? std::string() : std::move(output.err);
}

}  // namespace railyard::testing
