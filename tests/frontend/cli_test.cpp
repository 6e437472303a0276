// The `croq check` command, run as a separate process. Built by the same
// build as these tests (target `croq`); skipped when it is not built.
#include <sys/wait.h>

#include <cstdio>

#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

struct CommandResult {
  int status = -1;
  std::string output;
};

std::filesystem::path croq_binary() { return std::filesystem::path(CROQ_BINARY_DIR) / "croq"; }

CommandResult run(const std::string& args) {
  CommandResult r;
  std::string command = croq_binary().string() + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("croq_cli_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path;
}

class CroqCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(croq_binary())) GTEST_SKIP() << "croq is not built: " << croq_binary();
  }
};

TEST_F(CroqCheck, CleanFileExitsZero) {
  CommandResult r = run("check " + (data_dir() / "corpus" / "ch3_matmul.co").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ok (2 __co__ functions: matmul, matmul_dma)"), std::string::npos) << r.output;
}

TEST_F(CroqCheck, ValidCroqtileTheRuntimeCannotRunIsAWarning) {
  auto path = write_temp("limit.co", "__co__ void f(s32 [8] x) {\n  parallel p by 1 : block {\n    shared event e;\n    g = e;\n  }\n}\n");
  CommandResult r = run("check " + path.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(":4:5: warning: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not supported yet by libcroqjit [unsupported-binding]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("croq::compile rejects it"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ok (1 __co__ function: f)"), std::string::npos) << r.output;
  // `croq compile` goes through croq::compile's checks: an error there.
  CommandResult c = run("compile " + path.string() + " --emit cuda --shape x=8");
  EXPECT_EQ(c.status, 1) << c.output;
  EXPECT_NE(c.output.find(":4:5: error: "), std::string::npos) << c.output;
}

TEST_F(CroqCheck, SyntaxOnlySkipsTheSemanticRulesButNotTheParser) {
  auto bad_rule = write_temp("rule.co", "__co__ void f(s32 [8] x) {\n  t = dma.copy x.chunkat(p) => local;\n}\n");
  CommandResult strict = run("check " + bad_rule.string());
  EXPECT_EQ(strict.status, 1) << strict.output;
  EXPECT_NE(strict.output.find("unknown name `p`"), std::string::npos) << strict.output;
  CommandResult parsed = run("check --syntax-only " + bad_rule.string());
  EXPECT_EQ(parsed.status, 0) << parsed.output;
  auto bad_syntax = write_temp("syntax.co", "__co__ void f(s32 [8] x) {\n  t = dma.copy x shared;\n}\n");
  CommandResult broken = run("check --syntax-only " + bad_syntax.string());
  EXPECT_EQ(broken.status, 1) << broken.output;
  EXPECT_NE(broken.output.find(":2:18: error: expected `=>`"), std::string::npos) << broken.output;
}

TEST_F(CroqCheck, ErrorsInCaretFormExitOne) {
  auto path = write_temp("bad.co", "__co__ void f(s32 [8] x) {\n  f = dma.copy x shared;\n}\n");
  CommandResult r = run("check " + path.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(":2:18: error: expected `=>` after the copy source, found `shared`"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  f = dma.copy x shared;"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("^~~~~~"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hint: did you mean `=> shared`?"), std::string::npos) << r.output;
}

TEST_F(CroqCheck, JsonOutput) {
  auto path = write_temp("bad_json.co", "__co__ void f() {\n  wait;\n}\n");
  CommandResult r = run("check --json " + path.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("\"message\": \"expected a future or event after `wait`, found `;`\""), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\"line\": 2"), std::string::npos) << r.output;
  CommandResult ok = run("check --json " + (data_dir() / "corpus" / "ch2_tiled_add.co").string());
  EXPECT_EQ(ok.status, 0);
  EXPECT_NE(ok.output.find("\"tiled_add_2d\""), std::string::npos) << ok.output;
}

// `croq check` runs sema on every function: all errors, with rule ids.
TEST_F(CroqCheck, ReportsSemanticErrorsOfEveryFunction) {
  auto path = write_temp("sema.co",
                         "__co__ void a(s32 [8, 8] x) {\n  parallel i by 8\n    x.at(i) = 1;\n}\n"
                         "__co__ void b(s32 [8] x) {\n  parallel i by 8\n    x.at(i) = q;\n}\n");
  CommandResult r = run("check " + path.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(":3:7: error: `.at` on a rank-2 tensor takes 2 indices, got 1 [at-arity]"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  note: `x` is parameter 1: s32 [8, 8], a global tensor of rank 2"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(":7:15: error: unknown name `q` [unknown-name]"), std::string::npos) << r.output;
  CommandResult only_a = run("check --entry a " + path.string());
  EXPECT_EQ(only_a.status, 1);
  EXPECT_EQ(only_a.output.find("unknown name"), std::string::npos) << only_a.output;
  CommandResult json = run("check --json " + path.string());
  EXPECT_EQ(json.status, 1);
  EXPECT_NE(json.output.find("\"rule\": \"at-arity\""), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"notes\": ["), std::string::npos) << json.output;
}

TEST_F(CroqCheck, DefinesOverrideAndEntry) {
  auto path = write_temp("defines.co",
                         "#define USE_A 1\n#if USE_A\n__co__ void a() { }\n#else\n__co__ void b() { }\n#endif\n");
  EXPECT_EQ(run("check --entry a " + path.string()).status, 0);
  CommandResult r = run("check --define USE_A=0 --entry a " + path.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("no __co__ function named `a`; the source defines `b`"), std::string::npos) << r.output;
  EXPECT_EQ(run("check -DUSE_A=0 --entry b " + path.string()).status, 0);
}

TEST_F(CroqCheck, UsageErrorsExitTwo) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("frobnicate").status, 2);
  EXPECT_EQ(run("check").status, 2);
  EXPECT_EQ(run("check /nonexistent/file.co").status, 2);
  EXPECT_EQ(run("check --bogus x.co").status, 2);
  EXPECT_EQ(run("check --define N=abc x.co").status, 2);
  CommandResult help = run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("check"), std::string::npos);
  CommandResult check_help = run("check --help");
  EXPECT_EQ(check_help.status, 0);
  EXPECT_NE(check_help.output.find("--define N=V"), std::string::npos);
}

}  // namespace
}  // namespace croq::frontend::testing
