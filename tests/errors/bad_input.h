// The bad-input catalogue: every kind of bad input railyard refuses, with
// the refusal it must give. One test (bad_input_catalogue_test.cc) provokes
// each and checks that the message names the input, the value and what was
// expected; docs/errors.md is generated from the same table, so the two
// cannot drift apart.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "child_output.h"

namespace railyard::testing {

struct BadInput {
  std::string kind;      // the section of docs/errors.md it belongs to
  std::string input;     // what was bad: a variable, a flag, a wire field
  std::string value;     // the bad value as given (or described, for long or binary ones)
  std::string expected;  // the words of the refusal saying what was expected
  // Provokes the refusal and returns its whole text: an exception's
  // message, a tool's stderr, a log line; empty when the input was taken.
  std::function<std::string()> refuse;
  // How the message names the input, when not by `input` itself (wire
  // fields are named by what they mean), and the text that shows the value
  // (empty: `value`).
  std::string input_in_message;
  std::string value_in_message;
  // A secret (a job key) the message must not print.
  std::string secret;
};

// Each part of the catalogue, one per file.
[[nodiscard]] std::vector<BadInput> transport_variables();
[[nodiscard]] std::vector<BadInput> job_variables();
[[nodiscard]] std::vector<BadInput> tool_flags();
[[nodiscard]] std::vector<BadInput> wire_messages();
[[nodiscard]] std::vector<BadInput> bootstrap_refusals();

// Runs `call`, returning the message of the exception it throws, or "" when
// it returns.
[[nodiscard]] std::string refusal_of(const std::function<void()>& call);

// Environment variables to set: (name, value), or unset: (name, nullopt).
using Variables = EnvironmentChanges;

// Sets `variables` for the duration of `call`, then as refusal_of.
[[nodiscard]] std::string refusal_with(const Variables& variables,
                                       const std::function<void()>& call);

// The entry for variable `name` set to `value` (with `also` set beside it),
// refused by `read`, which reads it as the library does.
[[nodiscard]] BadInput variable(std::string kind, const std::string& name, const std::string& value,
                                std::string expected, std::function<void()> read,
                                Variables also = {});

// Runs the built tool `tool` (its path) with `arguments` and `variables`
// changed in its environment; returns its stderr when it exits with a
// status other than 0 (refusals go to stderr, not stdout), else "".
[[nodiscard]] std::string tool_refusal(const std::string& tool,
                                       const std::vector<std::string>& arguments,
                                       const Variables& variables = {});

// `input`, shown in the docs as `value`, its message showing `in_message`
// where the value would be (long values are cut).
[[nodiscard]] BadInput shown_as(BadInput input, std::string value, std::string in_message);

// `input`, which its message names as `in_message`.
[[nodiscard]] BadInput named_as(BadInput input, std::string in_message);

// As shown_as, for a secret value: the message must not print it.
[[nodiscard]] BadInput secret(BadInput input, std::string value, std::string in_message);

}  // namespace railyard::testing
