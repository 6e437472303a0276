// Diagnostics rendering (caret form) and JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "croq/error.hpp"

namespace croq {
namespace {

TEST(CompileError, RendersLineColumnCaretAndHint) {
  std::string src = "__co__ void f() {\n  a = dma.copy x shared;\n}\n";
  CompileError e({Diagnostic{Severity::error, "expected `=>`, found `shared`", 2, 18, 6, "did you mean `=> shared`?"}},
                 src, "k.co");
  EXPECT_EQ(std::string(e.what()),
            "k.co:2:18: error: expected `=>`, found `shared`\n"
            "      a = dma.copy x shared;\n"
            "                     ^~~~~~\n"
            "  hint: did you mean `=> shared`?\n");
}

TEST(CompileError, SeveralDiagnosticsAndClampedSpans) {
  std::string src = "abc\n\tdef\n";
  CompileError e({Diagnostic{Severity::warning, "w", 1, 3, 40, ""},
                  Diagnostic{Severity::error, "tab", 2, 2, 1, ""},
                  Diagnostic{Severity::note, "no location", 0, 0, 1, ""}},
                 src, "x");
  EXPECT_EQ(std::string(e.what()),
            "x:1:3: warning: w\n    abc\n      ^\n"
            "x:2:2: error: tab\n    \tdef\n    \t^\n"
            "x: note: no location\n");
}

TEST(CompileError, JsonCarriesEveryField) {
  CompileError e({Diagnostic{Severity::error, "m", 4, 7, 3, "h"}}, "", "s.co");
  auto j = nlohmann::json::parse(e.to_json());
  EXPECT_EQ(j["source"], "s.co");
  ASSERT_EQ(j["diagnostics"].size(), 1u);
  auto d = j["diagnostics"][0];
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["message"], "m");
  EXPECT_EQ(d["line"], 4);
  EXPECT_EQ(d["column"], 7);
  EXPECT_EQ(d["length"], 3);
  EXPECT_EQ(d["hint"], "h");
}

// The excerpt window and the message are cut by bytes; a cut never splits a
// character (the text then was invalid UTF-8: Python crashed building a str
// from it, and to_json threw nlohmann's type_error 316).
TEST(CompileError, CutsKeepWholeCharacters) {
  const std::string han = "\xE6\xBC\xA2";  // 3 bytes
  std::string comment;
  for (int i = 0; i < 200; ++i) comment += han;
  // 18 bytes before the comment: the window's 160th byte is inside a character.
  const std::string line = "  y = nothing; // " + comment;
  CompileError e({Diagnostic{Severity::error, "unknown name `nothing`", 1, 7, 7}}, line + "\n", "k.co");
  std::string kept;
  for (int i = 0; i < 47; ++i) kept += han;  // (160 - 18) / 3 whole characters
  EXPECT_EQ(std::string(e.what()), "k.co:1:7: error: unknown name `nothing`\n"
                                   "      y = nothing; // " + kept + "...\n"
                                   "          ^~~~~~~\n");
  std::string accents;
  for (int i = 0; i < 1500; ++i) accents += "\xC3\xA9";
  CompileError cut({Diagnostic{Severity::error, "#error: x" + accents, 1, 1, 1}}, "", "k.co");
  std::string message = "#error: x";
  for (int i = 0; i < 945; ++i) message += "\xC3\xA9";
  message += "... (1,110 more bytes)";
  EXPECT_EQ(cut.diagnostics()[0].message, message);
  EXPECT_EQ(nlohmann::json::parse(cut.to_json())["diagnostics"][0]["message"], message);
  // A quoted span is cut on a character boundary too.
  std::string quoted = "x`";
  for (int i = 0; i < 100; ++i) quoted += "\xC3\xA9";
  CompileError span({Diagnostic{Severity::error, quoted + "`", 0, 0, 1}}, "", "k.co");
  std::string shown = "x`";
  for (int i = 0; i < 50; ++i) shown += "\xC3\xA9";
  EXPECT_EQ(span.diagnostics()[0].message, shown + "...`");
}

// Bytes that are not UTF-8 (a Latin-1 source, a file name) become U+FFFD
// in what(), the diagnostics and the JSON.
TEST(CompileError, InvalidUtf8BecomesTheReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  CompileError e({Diagnostic{Severity::error, "bad `caf\xE9`", 1, 5, 1, "h\xFF", "", {"n\xC3"}}}, "caf\xE9 x\n",
                 "f\xFF.co");
  EXPECT_EQ(std::string(e.what()), "f" + fffd + ".co:1:5: error: bad `caf" + fffd + "`\n"
                                   "    caf" + fffd + " x\n"
                                   "        ^\n"
                                   "  note: n" + fffd + "\n"
                                   "  hint: h" + fffd + "\n");
  const nlohmann::json j = nlohmann::json::parse(e.to_json());
  EXPECT_EQ(j["source"], "f" + fffd + ".co");
  EXPECT_EQ(j["diagnostics"][0]["message"], "bad `caf" + fffd + "`");
  EXPECT_EQ(j["diagnostics"][0]["hint"], "h" + fffd);
  EXPECT_EQ(j["diagnostics"][0]["notes"][0], "n" + fffd);
}

TEST(CompileError, LongSourceLinesShowAWindowAroundTheCaret) {
  std::string src = std::string(1000, 'a') + " bad " + std::string(1000, 'b') + "\n";
  CompileError e({Diagnostic{Severity::error, "here", 1, 1002, 3, ""}}, src, "x");
  // 60 bytes before the caret, 160 in all.
  std::string expected_line = "    ..." + std::string(59, 'a') + " bad " + std::string(96, 'b') + "...\n";
  std::string expected_caret = "    " + std::string(3 + 60, ' ') + "^~~\n";
  EXPECT_EQ(std::string(e.what()), "x:1:1002: error: here\n" + expected_line + expected_caret);
  // A span longer than the window stops at its end.
  CompileError whole({Diagnostic{Severity::error, "all", 1, 1, 5000, ""}}, src, "x");
  EXPECT_EQ(std::string(whole.what()), "x:1:1: error: all\n    " + std::string(160, 'a') + "...\n    ^" +
                                           std::string(159, '~') + "\n");
}

TEST(CompileError, QuotedTextMessagesAndCountsAreBounded) {
  std::string name(10000, 'n');
  std::vector<Diagnostic> many(1000, Diagnostic{Severity::error, "unknown `" + name + "`", 0, 0, 1, "`" + name + "`?"});
  CompileError e(many, "", "x");
  ASSERT_EQ(e.diagnostics().size(), 201u);
  EXPECT_EQ(e.diagnostics()[0].message, "unknown `" + std::string(100, 'n') + "...`");
  EXPECT_EQ(e.diagnostics()[0].hint, "`" + std::string(100, 'n') + "...`?");
  EXPECT_EQ(e.diagnostics().back().severity, Severity::note);
  EXPECT_EQ(e.diagnostics().back().message, "800 more diagnostics not shown");
  EXPECT_LT(std::string(e.what()).size(), 200u * 300u);
  EXPECT_LT(e.to_json().size(), 200u * 400u);
  // Unquoted text is cut as a whole.
  CompileError plain({Diagnostic{Severity::error, std::string(100000, 'z'), 0, 0, 1, ""}}, "", "x");
  EXPECT_EQ(plain.diagnostics()[0].message, std::string(1900, 'z') + "... (98,100 more bytes)");
}

// A semantic diagnostic names its rule after the message and lists its
// notes before the hint; JSON keeps both as fields (absent when empty).
TEST(CompileError, RendersRuleAndNotes) {
  std::string src = "__co__ void f(s32 [8, 8] a) {\n  a.at(0) = 1;\n}\n";
  Diagnostic d{Severity::error, "`.at` on a rank-2 tensor takes 2 indices, got 1", 2, 5, 2, "one index per dimension"};
  d.rule = "at-arity";
  d.notes = {"`a` is parameter 1: s32 [8, 8], a global tensor of rank 2", "second note"};
  CompileError e({d}, src, "k.co");
  EXPECT_EQ(std::string(e.what()),
            "k.co:2:5: error: `.at` on a rank-2 tensor takes 2 indices, got 1 [at-arity]\n"
            "      a.at(0) = 1;\n"
            "        ^~\n"
            "  note: `a` is parameter 1: s32 [8, 8], a global tensor of rank 2\n"
            "  note: second note\n"
            "  hint: one index per dimension\n");
  auto j = nlohmann::json::parse(e.to_json())["diagnostics"][0];
  EXPECT_EQ(j["rule"], "at-arity");
  EXPECT_EQ(j["notes"], nlohmann::json({"`a` is parameter 1: s32 [8, 8], a global tensor of rank 2", "second note"}));
  EXPECT_EQ(j["message"], "`.at` on a rank-2 tensor takes 2 indices, got 1");
  auto plain = nlohmann::json::parse(CompileError({Diagnostic{Severity::error, "m", 1, 1, 1, ""}}, "", "s").to_json());
  EXPECT_FALSE(plain["diagnostics"][0].contains("rule"));
  EXPECT_FALSE(plain["diagnostics"][0].contains("notes"));
}

TEST(CudaError, NamesTheCall) {
  CudaError e("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_EQ(e.call(), "cuLaunchKernel");
  EXPECT_EQ(e.code(), 1);
  EXPECT_STREQ(e.what(), "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_NE(dynamic_cast<const Error*>(&e), nullptr);
}

}  // namespace
}  // namespace croq
