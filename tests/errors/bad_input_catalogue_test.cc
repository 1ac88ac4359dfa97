// Provokes every bad input of the catalogue (bad_input.h) and checks its
// refusal; checks that docs/errors.md is what the table generates.
//
//   bad_input_catalogue_test --write-docs docs/errors.md
//
// writes that file again after the table changed.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bad_input.h"

namespace railyard::testing {
namespace {

const std::vector<BadInput>& catalogue() {
  static const std::vector<BadInput> all = [] {
    std::vector<BadInput> inputs;
    for (auto part :
         {transport_variables, job_variables, tool_flags, wire_messages, bootstrap_refusals}) {
      for (auto& input : part()) {
        inputs.push_back(std::move(input));
      }
    }
    return inputs;
  }();
  return all;
}

// A table cell: pipes escaped, an empty value shown as such.
std::string cell(const std::string& text, bool code) {
  if (text.empty()) {
    return "*(empty)*";
  }
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return code ? "`" + out + "`" : out;
}

std::string render_docs() {
  std::ostringstream out;
  out << "# Bad inputs and their errors\n\n"
      << "Every kind of bad input railyard refuses: environment variables, the tools' flags, "
         "malformed messages from the network and connections the bootstrap turns away. Each "
         "row gives the input, a bad value, and the words of the refusal that say what was "
         "expected; the whole message also names the input and shows the value (a job key "
         "excepted, which is never printed). Environment variables are refused with "
         "`ConfigError` (`NAME='value' is invalid: expected ...`) when the object that reads "
         "them is built; the tools exit with a failure status and say it on stderr; a malformed "
         "multi-rail message is dropped, counted and logged; a refused address, key or rank "
         "card fails the call that was given it. The torch backend's errors, which a Python "
         "job provokes, are listed in [pytorch.md](pytorch.md) (\"Errors\"), checked the same "
         "way by `tests/torch/bad_inputs.py`.\n\n"
      << "This file is generated from the table of `tests/errors/`, whose test provokes every "
         "row and checks its message (`bad_input_catalogue_test`); after changing the table, "
         "run `build/release/tests/bad_input_catalogue_test --write-docs docs/errors.md`. "
      << catalogue().size() << " inputs.\n";
  std::vector<std::string> kinds;
  std::map<std::string, std::vector<const BadInput*>> by_kind;
  for (const BadInput& input : catalogue()) {
    if (!by_kind.contains(input.kind)) {
      kinds.push_back(input.kind);
    }
    by_kind[input.kind].push_back(&input);
  }
  for (const std::string& kind : kinds) {
    out << "\n## " << kind << "\n\n| input | bad value | the refusal says |\n|---|---|---|\n";
    for (const BadInput* input : by_kind[kind]) {
      out << "| " << cell(input->input, true) << " | " << cell(input->value, input->secret.empty())
          << " | " << cell(input->expected, false) << " |\n";
    }
  }
  return out.str();
}

TEST(BadInputCatalogue, HoldsAtLeastAHundredDistinctInputs) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const BadInput& input : catalogue()) {
    EXPECT_FALSE(input.kind.empty() || input.input.empty() || input.expected.empty())
        << input.input << "='" << input.value << "'";
    EXPECT_TRUE(seen.emplace(input.input, input.value).second)
        << input.input << "='" << input.value << "' is listed twice";
  }
  EXPECT_GE(seen.size(), 100U);
}

TEST(BadInputCatalogue, DocsErrorsMdIsGeneratedFromThisTable) {
  std::ifstream file(RAILYARD_SOURCE_DIR "/docs/errors.md");
  ASSERT_TRUE(file) << "docs/errors.md is missing";
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str(), render_docs())
      << "docs/errors.md is stale: run build/release/tests/bad_input_catalogue_test "
         "--write-docs docs/errors.md";
}

class BadInputRefusal : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BadInputRefusal, NamesTheInputTheValueAndWhatWasExpected) {
  const BadInput& input = catalogue()[GetParam()];
  const std::string message = input.refuse();
  const std::string context = input.input + "='" + input.value + "' gave: " + message;
  ASSERT_FALSE(message.empty()) << input.input << "='" << input.value << "' was accepted";
  const std::string& named = input.input_in_message.empty() ? input.input : input.input_in_message;
  const std::string& shown = input.value_in_message.empty() ? input.value : input.value_in_message;
  EXPECT_NE(message.find(named), std::string::npos) << "the input is not named: " << context;
  EXPECT_NE(message.find(shown), std::string::npos) << "the value is not shown: " << context;
  EXPECT_NE(message.find(input.expected), std::string::npos)
      << "it does not say '" << input.expected << "': " << context;
  if (!input.secret.empty()) {
    EXPECT_EQ(message.find(input.secret), std::string::npos)
        << "the secret is printed: " << message;
  }
}

// Test names: the input and the value, reduced to what gtest allows.
std::string name_of(const ::testing::TestParamInfo<std::size_t>& info) {
  const BadInput& input = catalogue()[info.param];
  std::string name = std::to_string(info.param) + "_" + input.input + "_" + input.value;
  std::string out;
  for (const char c : name.substr(0, 60)) {
    out += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInputRefusal,
                         ::testing::Range(std::size_t{0}, catalogue().size()), name_of);

}  // namespace
}  // namespace railyard::testing

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--write-docs") == 0) {
    std::ofstream out(argv[2]);
    out << railyard::testing::render_docs();
    return out ? 0 : 1;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
