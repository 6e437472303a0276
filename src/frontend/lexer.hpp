// Lexer: splits a source text into tokens that point into the text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "croq/error.hpp"

namespace croq::frontend {

enum class TokenKind : std::uint8_t {
  identifier,  // names and keywords alike; the parser tells them apart
  integer,     // 42, 0x1F, 1u, 1'000
  floating,    // 0.0f, 1e-3, .5
  string,      // "..." and raw strings, quotes included
  character,   // 'a'
  punct,       // operators and separators, longest match: => :: ++ ...
  invalid,     // a byte no token starts with, or an unterminated literal
  pragma,      // the `pragma` of a `#pragma croq ...` line, kept by the preprocessor; its words follow on its line
  end_of_file,
};

struct Token {
  TokenKind kind = TokenKind::end_of_file;
  std::string_view text;  // into the source (or into a define's value)
  int line = 1;
  int column = 1;
  int offset = 0;
  bool at_line_start = false;      // first token on its line
  bool space_before = false;       // whitespace or a comment precedes it
  bool follows_directive = false;  // set by the preprocessor: a directive line precedes it

  bool is(std::string_view s) const {
    if ((kind != TokenKind::punct && kind != TokenKind::identifier) || text.size() != s.size()) return false;
    for (size_t i = 0; i < s.size(); ++i)  // short texts: a loop beats a memcmp call
      if (text[i] != s[i]) return false;
    return true;
  }
  bool is_identifier() const { return kind == TokenKind::identifier; }
  int length() const { return static_cast<int>(text.size()); }
};

// Never throws and never stops early: unknown bytes become `invalid` tokens,
// an unterminated block comment is reported in `diagnostics` and ends the
// token stream. The last token is always end_of_file.
std::vector<Token> tokenize(std::string_view source, std::vector<Diagnostic>& diagnostics);
// The same, stopping with an error after `max_tokens` tokens; `complete` is
// false when it did.
std::vector<Token> tokenize(std::string_view source, std::vector<Diagnostic>& diagnostics, std::size_t max_tokens,
                            bool& complete);

// The value of an integer literal (hex, binary, octal, ' separators,
// u/l suffixes); nullopt when it does not fit in 64 bits or is malformed.
std::optional<std::uint64_t> integer_value(std::string_view spelling);
// The value of a floating literal, suffix ignored.
double floating_value(std::string_view spelling);

// The bytes a string literal stands for: "..." with C's escapes (\n \t
// \\ \" \' \? \a \b \f \r \v, octal \ooo, hex \xHH), or a raw R"d(...)d".
// nullopt, with why in `problem`, for a prefixed literal (u8"", L"") or an
// unknown escape.
std::optional<std::string> string_value(std::string_view spelling, std::string* problem = nullptr);

// Why a numeric literal cannot be used: malformed, an unknown suffix (which
// would reach the generated CUDA as a user-defined literal), an integer
// above INT64_MAX without a `u` suffix, a float that is infinite in its type. nullopt when fine.
struct LiteralProblem {
  std::string message;
  std::string hint;
};
std::optional<LiteralProblem> integer_literal_problem(std::string_view spelling);
std::optional<LiteralProblem> floating_literal_problem(std::string_view spelling);
// The suffix letters of a numeric literal: "f" for 0.0f, "u" for 1u.
std::string_view literal_suffix(std::string_view spelling, bool floating);

// The first UTF-8 character of `text`: its code point and byte length;
// {0, 0} when the text starts with a byte that begins no well-formed
// character (a continuation byte, an overlong form, a surrogate, > U+10FFFF).
std::pair<char32_t, std::size_t> utf8_sequence(std::string_view text);
// The character `text` starts with, as a message names it: `@`, `\0` (a NUL
// byte), `\x1B` (a control), `U+00E9` (beyond ASCII), `\xFF` (no UTF-8).
std::string describe_character(std::string_view text);

// An error Diagnostic underlining `token`.
Diagnostic error_at(const Token& token, std::string message, std::string hint = {});

// How a token reads in a message: `=>`, `shared`, "end of file".
std::string describe(const Token& token);
// Source text in backquotes for a message, shortened past `max_bytes`.
std::string quote(std::string_view text, std::size_t max_bytes = 40);

}  // namespace croq::frontend
