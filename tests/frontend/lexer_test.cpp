// Lexer: token kinds, texts, locations, literals, comments, arbitrary bytes.
#include <random>

#include "frontend/lexer.hpp"
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

std::vector<Token> lex(std::string_view source, std::vector<Diagnostic>* diags = nullptr) {
  std::vector<Diagnostic> local;
  return tokenize(source, diags ? *diags : local);
}

std::vector<std::string> texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens)
    if (t.kind != TokenKind::end_of_file) out.emplace_back(t.text);
  return out;
}

TEST(Lexer, CopyStatementTokens) {
  auto tokens = lex("f = dma.copy.async.swiz<128> lhs.chunkat(_, k) => shared;");
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"f", "=", "dma", ".", "copy", ".", "async", ".", "swiz", "<",
                                                     "128", ">", "lhs", ".", "chunkat", "(", "_", ",", "k", ")",
                                                     "=>", "shared", ";"}));
  EXPECT_EQ(tokens.back().kind, TokenKind::end_of_file);
}

TEST(Lexer, LongestPunctuatorsWin) {
  EXPECT_EQ(texts(lex("a >>= b <<= c => d :: e ++ -- -> ... == != <= >= && ||")),
            (std::vector<std::string>{"a", ">>=", "b", "<<=", "c", "=>", "d", "::", "e", "++", "--", "->", "...",
                                      "==", "!=", "<=", ">=", "&&", "||"}));
}

TEST(Lexer, LocationsAreOneBasedBytes) {
  auto tokens = lex("int x;\n  wait  f;\n");
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(tokens[3].text, "wait");
  EXPECT_EQ(tokens[3].line, 2);
  EXPECT_EQ(tokens[3].column, 3);
  EXPECT_EQ(tokens[3].offset, 9);
  EXPECT_TRUE(tokens[3].at_line_start);
  EXPECT_EQ(tokens[4].column, 9);
  EXPECT_FALSE(tokens[4].at_line_start);
  EXPECT_TRUE(tokens[4].space_before);
  EXPECT_EQ(tokens[6].kind, TokenKind::end_of_file);
  EXPECT_EQ(tokens[6].line, 3);
}

TEST(Lexer, NumericLiterals) {
  auto tokens = lex("0.0f 1u 0x1F 10ull 1e-3 .5f 2. 0b101 1'000 7");
  std::vector<TokenKind> kinds;
  for (const Token& t : tokens) kinds.push_back(t.kind);
  using K = TokenKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::floating, K::integer, K::integer, K::integer, K::floating, K::floating,
                                   K::floating, K::integer, K::integer, K::integer, K::end_of_file}));
  EXPECT_EQ(integer_value("0x1F"), 31u);
  EXPECT_EQ(integer_value("10ull"), 10u);
  EXPECT_EQ(integer_value("0b101"), 5u);
  EXPECT_EQ(integer_value("1'000"), 1000u);
  EXPECT_EQ(integer_value("017"), 15u);
  EXPECT_EQ(integer_value("99999999999999999999999"), std::nullopt);
  EXPECT_EQ(literal_suffix("0.0f", true), "f");
  EXPECT_EQ(literal_suffix("1u", false), "u");
  EXPECT_EQ(literal_suffix("0xFFu", false), "u");
  EXPECT_EQ(literal_suffix("1e5", true), "");
  EXPECT_DOUBLE_EQ(floating_value("1.5f"), 1.5);
  EXPECT_DOUBLE_EQ(floating_value("1e-3"), 0.001);
}

TEST(Lexer, MemberAfterIntegerIsNotAFloat) {
  EXPECT_EQ(texts(lex("x.span(0).at")), (std::vector<std::string>{"x", ".", "span", "(", "0", ")", ".", "at"}));
}

TEST(Lexer, CommentsAndStrings) {
  auto tokens = lex("a // line comment\n/* block\n comment */ b \"s\\\"tr\" 'c' R\"x(raw \" })x\"");
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"a", "b", "\"s\\\"tr\"", "'c'", "R\"x(raw \" })x\""}));
  EXPECT_EQ(tokens[1].line, 3);
  EXPECT_EQ(tokens[1].column, 13);
  EXPECT_TRUE(tokens[1].at_line_start);
  EXPECT_EQ(tokens[2].kind, TokenKind::string);
  EXPECT_EQ(tokens[3].kind, TokenKind::character);
  EXPECT_EQ(tokens[4].kind, TokenKind::string);
}

TEST(Lexer, UnterminatedCommentIsReportedAtItsStart) {
  std::vector<Diagnostic> diags;
  auto tokens = lex("a\n  /* never closed\n b", &diags);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].line, 2);
  EXPECT_EQ(diags[0].column, 3);
  EXPECT_EQ(diags[0].message, "unterminated comment: `/*` has no matching `*/`");
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"a"}));
}

TEST(Lexer, StrayBytesBecomeInvalidTokens) {
  auto tokens = lex("a @ \xC3\xA9 $ \"open\nb");
  std::vector<TokenKind> kinds;
  for (const Token& t : tokens) kinds.push_back(t.kind);
  using K = TokenKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::identifier, K::invalid, K::invalid, K::invalid, K::invalid, K::identifier,
                                   K::end_of_file}));
  EXPECT_EQ(tokens[2].text, "\xC3\xA9");  // one token for the whole UTF-8 sequence
  EXPECT_EQ(tokens[5].line, 2);
}

TEST(Lexer, LineContinuationJoinsLines) {
  auto tokens = lex("#define X \\\n  42\ny");
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"#", "define", "X", "42", "y"}));
  EXPECT_FALSE(tokens[3].at_line_start);
  EXPECT_TRUE(tokens[4].at_line_start);
}

TEST(Lexer, ArbitraryBytesNeverBreakIt) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(static_cast<size_t>(rng() % 300), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    std::vector<Diagnostic> diags;
    auto tokens = tokenize(bytes, diags);
    ASSERT_FALSE(tokens.empty());
    EXPECT_EQ(tokens.back().kind, TokenKind::end_of_file);
    for (const Token& t : tokens) {
      ASSERT_GE(t.offset, 0);
      ASSERT_LE(static_cast<size_t>(t.offset) + t.text.size(), bytes.size());
    }
  }
}

TEST(Lexer, DescribeNamesTokens) {
  auto tokens = lex("=> shared");
  EXPECT_EQ(describe(tokens[0]), "`=>`");
  EXPECT_EQ(describe(tokens[1]), "`shared`");
  EXPECT_EQ(describe(tokens[2]), "end of file");
}

// The bytes a string literal stands for (inline assembly templates).
TEST(Lexer, StringValueDecodesEscapesAndRawStrings) {
  EXPECT_EQ(string_value(R"("mov.u32 %0, %1;")"), "mov.u32 %0, %1;");
  EXPECT_EQ(string_value(R"("a\n\t\\\"\'\?\x41\101\0z")"), std::string("a\n\t\\\"'?AA\0z", 11));
  EXPECT_EQ(string_value(R"x(R"d(raw "text" \n)d")x"), R"(raw "text" \n)");
  std::string problem;
  EXPECT_FALSE(string_value(R"("\q")", &problem));
  EXPECT_EQ(problem, "the unknown escape `\\q`");
  EXPECT_FALSE(string_value(R"(u8"x")", &problem));
  EXPECT_FALSE(string_value(R"("\777")", &problem));
  EXPECT_EQ(problem, "an octal escape above \\377");
}

}  // namespace
}  // namespace croq::frontend::testing
