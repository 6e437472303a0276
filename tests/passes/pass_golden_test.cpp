// Per-pass golden tests, as MLIR's FileCheck tests: each file
// tests/passes/<pass>/<case>.ir holds
//
//   // RUN: <pass>                 the pass (the folder's name)
//   // ARCH: sm_80                 optional: the target (default sm_90a)
//   // MAX-SHARED: 49152           optional: the shared-memory limit (default 227 KiB)
//   // ...                         what the case is about
//   kernel ...                     the input, in the IR's text form
//   // CHECK:
//   kernel ...                     the expected output (the full text), or
//   error L:C: message             the ir::SourceError the pass throws
//   hint: ...
//
// The runner parses the input (ir/parser.hpp), checks that it is written
// as the printer writes it (so the CHECK section differs from it only by
// what the pass did), verifies it with the decisions of the passes before
// this one, runs the pass alone, verifies the result with this pass's
// decision too, and compares the printed result with the CHECK section: no
// front end, no NVRTC. CROQ_UPDATE_GOLDEN=1 (exactly "1") rewrites the
// input in the printer's form and the CHECK section.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/golden.hpp"
#include "croq/error.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/text.hpp"
#include "ir/verifier.hpp"
#include "passes/passes.hpp"

namespace croq::passes {
namespace {

namespace fs = std::filesystem;

fs::path cases_dir() { return fs::path(CROQ_TEST_DATA_DIR).parent_path() / "passes"; }

std::vector<fs::path> case_files() {
  std::vector<fs::path> out;
  if (!fs::is_directory(cases_dir())) return out;
  for (const auto& entry : fs::recursive_directory_iterator(cases_dir()))
    if (entry.path().extension() == ".ir") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// One case file: the directives, the comment lines before the input, the
// input text (up to the `// CHECK:` line).
struct Case {
  std::map<std::string, std::string> directives;  // RUN, ARCH, MAX-SHARED
  std::string preamble;
  std::string input;
  bool has_check = false;
};

Case read_case(const std::string& text) {
  Case c;
  std::size_t at = 0;
  bool in_kernel = false;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string line = text.substr(at, end - at);
    if (line.empty() || line.back() != '\n') line += '\n';
    at = end;
    if (line.rfind("// CHECK:", 0) == 0) {
      c.has_check = true;
      break;
    }
    if (line.rfind("kernel ", 0) == 0) in_kernel = true;
    if (in_kernel) {
      c.input += line;
      continue;
    }
    c.preamble += line;
    if (line.rfind("// ", 0) == 0) {
      const std::size_t colon = line.find(": ");
      const std::string key = colon == std::string::npos ? "" : line.substr(3, colon - 3);
      if (key == "RUN" || key == "ARCH" || key == "MAX-SHARED")
        c.directives[key] = line.substr(colon + 2, line.find_last_not_of("\r\n") - colon - 1);
    }
  }
  return c;
}

// The decisions of the passes before `pass`, and with it.
std::pair<ir::Decisions, ir::Decisions> decisions_around(const Pass& pass) {
  ir::Decisions before;
  for (const Pass& p : pass_list()) {
    if (&p == &pass) break;
    before = before | p.decides;
  }
  return {before, before | pass.decides};
}

std::string problems_text(const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += "  " + p + "\n";
  return out;
}

// What the pass makes of the input: the full text of the result, or its error.
std::string run_case(const Case& c, const Pass& pass) {
  ir::Kernel kernel = ir::parse_kernel(c.input);
  const auto [before, after] = decisions_around(pass);
  const std::vector<std::string> input_problems = ir::verify(kernel, before);
  EXPECT_TRUE(input_problems.empty()) << "the input is not valid IR before " << pass.name << ":\n"
                                      << problems_text(input_problems);
  PassContext context;
  context.target = target::parse_target(c.directives.count("ARCH") ? c.directives.at("ARCH") : "sm_90a");
  if (c.directives.count("MAX-SHARED")) context.max_shared_bytes = std::stoll(c.directives.at("MAX-SHARED"));
  try {
    pass.run(kernel, context);
  } catch (const ir::SourceError& e) {
    return "error " + ir::text::position(e.where) + ": " + e.message + "\n" + (e.hint.empty() ? "" : "hint: " + e.hint + "\n");
  }
  const std::vector<std::string> output_problems = ir::verify(kernel, after);
  EXPECT_TRUE(output_problems.empty()) << pass.name << " left invalid IR:\n" << problems_text(output_problems);
  return ir::print_kernel(kernel, ir::IrDetail::full);
}

class PassGolden : public ::testing::TestWithParam<fs::path> {};

TEST_P(PassGolden, MatchesCheck) {
  const fs::path& path = GetParam();
  const std::string folder = path.parent_path().filename().string();
  const Pass* pass = find_pass(folder);
  ASSERT_NE(pass, nullptr) << path << ": the folder names no pass (" << stage_names() << ")";
  const Case c = read_case(croq::test::read_golden(path));
  ASSERT_EQ(c.directives.count("RUN") ? c.directives.at("RUN") : "", folder) << path << ": `// RUN: " << folder << "` expected";
  ASSERT_FALSE(c.input.empty()) << path << ": no `kernel` input";
  const std::string canonical = ir::print_kernel(ir::parse_kernel(c.input), ir::IrDetail::full);
  if (!croq::test::update_golden()) {
    ASSERT_TRUE(c.has_check) << path << ": no `// CHECK:` section";
    EXPECT_EQ(c.input, canonical) << path << ": the input is not in the printer's form (CROQ_UPDATE_GOLDEN=1 rewrites it)";
  }
  Case as_printed = c;
  as_printed.input = canonical;
  const std::string actual = c.preamble + canonical + "// CHECK:\n" + run_case(as_printed, *pass);
  CROQ_EXPECT_GOLDEN(actual, path);
}

INSTANTIATE_TEST_SUITE_P(Cases, PassGolden, ::testing::ValuesIn(case_files()), [](const auto& info) {
  std::string name = info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

// At least two cases per pass, one of them a kernel the pass leaves as it
// is (its CHECK section is its input).
TEST(PassGolden, EveryPassHasTwoCasesOneOfThemUnchanged) {
  std::map<std::string, int> cases, unchanged;
  for (const fs::path& p : case_files()) {
    const std::string pass = p.parent_path().filename().string();
    const std::string text = croq::test::read_golden(p);
    const Case c = read_case(text);
    const std::size_t check = text.find("// CHECK:\n");
    ++cases[pass];
    if (check != std::string::npos && text.substr(check + 10) == c.input) ++unchanged[pass];
  }
  for (const Pass& p : pass_list()) {
    EXPECT_GE(cases[std::string(p.name)], 2) << p.name;
    EXPECT_GE(unchanged[std::string(p.name)], 1) << p.name << " has no case it leaves unchanged";
  }
}

TEST(PassGolden, CaseFilesReadTheirParts) {
  const Case c = read_case(
      "// RUN: vectorize_copies\n// ARCH: sm_80\n// about the case\nkernel k: grid 1, block 1, shared 0 bytes\n"
      "  fence block\n// CHECK:\nkernel k: ...\n");
  EXPECT_EQ(c.directives.at("RUN"), "vectorize_copies");
  EXPECT_EQ(c.directives.at("ARCH"), "sm_80");
  EXPECT_EQ(c.input, "kernel k: grid 1, block 1, shared 0 bytes\n  fence block\n");
  EXPECT_TRUE(c.has_check);
  EXPECT_EQ(c.preamble, "// RUN: vectorize_copies\n// ARCH: sm_80\n// about the case\n");
}

}  // namespace
}  // namespace croq::passes
