// Lexer: one pass over the bytes, no regex, tokens are views into the source.
#include "frontend/lexer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "support/format.hpp"

namespace croq::frontend {
namespace {

bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(unsigned char c) { return is_ident_start(c) || is_digit(c); }
bool is_hex_digit(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Longest first within each length, so the first prefix match is the longest.
constexpr std::array<std::string_view, 3> kPunct3 = {">>=", "<<=", "..."};
constexpr std::array<std::string_view, 21> kPunct2 = {
    "=>", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "++", "--",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->", "::"};
constexpr std::string_view kPunct1 = "+-*/%=<>!~&|^?:;,.()[]{}#";

class Lexer {
 public:
  Lexer(std::string_view source, std::vector<Diagnostic>& diagnostics, std::size_t max_tokens)
      : src_(source), diags_(diagnostics), max_tokens_(max_tokens) {}

  bool complete() const { return !over_limit_; }

  std::vector<Token> run() {
    std::vector<Token> tokens;
    tokens.reserve(std::min(src_.size() / 4, max_tokens_) + 1);
    while (true) {
      bool space = skip_space_and_comments();
      if (stopped_ || pos_ >= src_.size()) break;
      if (tokens.size() == max_tokens_) {
        over_limit_ = true;
        Diagnostic d;
        d.message = "the source has more than " + support::group_digits(max_tokens_) + " tokens, the limit";
        d.hint = "a Croqtile source this large is generated or corrupt; split it, or keep host code elsewhere";
        d.line = line_;
        d.column = column();
        diags_.push_back(d);
        break;
      }
      Token t = next_token();
      t.space_before = space;
      t.at_line_start = line_start_;
      line_start_ = false;
      tokens.push_back(t);
    }
    Token eof;
    eof.kind = TokenKind::end_of_file;
    eof.text = src_.substr(src_.size());
    eof.line = line_;
    eof.column = column();
    eof.offset = static_cast<int>(src_.size());
    eof.at_line_start = true;
    tokens.push_back(eof);
    return tokens;
  }

 private:
  // Columns count code points (support::text_columns), counted on from the
  // last position asked about on the line: linear however long the line.
  int column() {
    if (column_pos_ < line_begin_ || column_pos_ > pos_) {
      column_pos_ = line_begin_;
      column_count_ = 0;
    }
    column_count_ += support::text_columns(src_.substr(column_pos_, pos_ - column_pos_));
    column_pos_ = pos_;
    return column_count_ + 1;
  }
  unsigned char peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? static_cast<unsigned char>(src_[pos_ + ahead]) : 0;
  }
  void newline() {
    ++line_;
    line_begin_ = pos_;
    line_start_ = true;
  }

  // Returns whether anything was skipped. Backslash-newline joins lines.
  bool skip_space_and_comments() {
    size_t start = pos_;
    while (pos_ < src_.size()) {
      unsigned char c = peek();
      if (c == '\n') {
        ++pos_;
        newline();
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
        pos_ += peek(1) == '\n' ? 2 : 3;
        ++line_;
        line_begin_ = pos_;
      } else if (c == '/' && peek(1) == '/') {
        while (pos_ < src_.size() && peek() != '\n') ++pos_;
      } else if (c == '/' && peek(1) == '*') {
        skip_block_comment();
        if (stopped_) return true;
      } else {
        break;
      }
    }
    return pos_ != start;
  }

  void skip_block_comment() {
    int line = line_, col = column();
    pos_ += 2;
    while (pos_ < src_.size()) {
      if (peek() == '*' && peek(1) == '/') {
        pos_ += 2;
        return;
      }
      if (peek() == '\n') {
        ++pos_;
        newline();
      } else {
        ++pos_;
      }
    }
    Diagnostic d;
    d.message = "unterminated comment: `/*` has no matching `*/`";
    d.line = line;
    d.column = col;
    d.length = 2;
    d.hint = "close the comment with `*/`";
    diags_.push_back(d);
    stopped_ = true;
  }

  Token make(TokenKind kind, size_t start, int line, int col) {
    Token t;
    t.kind = kind;
    t.text = src_.substr(start, pos_ - start);
    t.line = line;
    t.column = col;
    t.offset = static_cast<int>(start);
    return t;
  }

  Token next_token() {
    size_t start = pos_;
    int line = line_, col = column();
    unsigned char c = peek();
    if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return number(start, line, col);
    if (is_ident_start(c)) {
      while (is_ident_char(peek())) ++pos_;
      std::string_view word = src_.substr(start, pos_ - start);
      if (peek() == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR"))
        return raw_string(start, line, col);
      return make(TokenKind::identifier, start, line, col);
    }
    if (c == '"' || c == '\'') return quoted(start, line, col, c);
    if (size_t n = punct_length()) return punct(start, line, col, n);
    // A character no token starts with: one UTF-8 sequence, or one byte
    // that starts none (messages name it: describe_character).
    pos_ += std::max<std::size_t>(1, utf8_sequence(src_.substr(pos_)).second);
    return make(TokenKind::invalid, start, line, col);
  }

  // Length of the punctuator at the cursor (longest match), 0 if none.
  size_t punct_length() const {
    char a = static_cast<char>(peek()), b = static_cast<char>(peek(1)), c = static_cast<char>(peek(2));
    for (std::string_view p : kPunct3)
      if (p[0] == a && p[1] == b && p[2] == c) return 3;
    for (std::string_view p : kPunct2)
      if (p[0] == a && p[1] == b) return 2;
    for (char p : kPunct1)
      if (p == a) return 1;
    return 0;
  }

  Token punct(size_t start, int line, int col, size_t n) {
    pos_ += n;
    return make(TokenKind::punct, start, line, col);
  }

  // digits, '.', exponent, then any suffix letters (0.0f, 1u, 10ull).
  Token number(size_t start, int line, int col) {
    bool is_float = false;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      pos_ += 2;
      while (is_hex_digit(peek()) || peek() == '\'') ++pos_;
      if (peek() == '.') {
        is_float = true;
        ++pos_;
        while (is_hex_digit(peek())) ++pos_;
      }
      if (peek() == 'p' || peek() == 'P') {
        is_float = true;
        ++pos_;
        if (peek() == '+' || peek() == '-') ++pos_;
        while (is_digit(peek())) ++pos_;
      }
    } else if (peek() == '0' && (peek(1) == 'b' || peek(1) == 'B')) {
      pos_ += 2;
      while (peek() == '0' || peek() == '1' || peek() == '\'') ++pos_;
    } else {
      while (is_digit(peek()) || (peek() == '\'' && is_digit(peek(1)))) ++pos_;
      if (peek() == '.' && !is_ident_start(peek(1))) {
        is_float = true;
        ++pos_;
        while (is_digit(peek())) ++pos_;
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
        is_float = true;
        pos_ += 2;
        while (is_digit(peek())) ++pos_;
      }
    }
    while (is_ident_char(peek())) ++pos_;  // suffix
    return make(is_float ? TokenKind::floating : TokenKind::integer, start, line, col);
  }

  // "..." or '...'; an unterminated one runs to the end of the line and is invalid.
  Token quoted(size_t start, int line, int col, unsigned char quote) {
    ++pos_;
    while (pos_ < src_.size()) {
      unsigned char c = peek();
      if (c == '\n') break;
      if (c == '\\' && pos_ + 1 < src_.size() && peek(1) != '\n') {
        pos_ += 2;
        continue;
      }
      ++pos_;
      if (c == quote)
        return make(quote == '"' ? TokenKind::string : TokenKind::character, start, line, col);
    }
    return make(TokenKind::invalid, start, line, col);
  }

  // R"delim( ... )delim" as host C++ code writes it.
  Token raw_string(size_t start, int line, int col) {
    size_t open = pos_ + 1;
    size_t paren = src_.find('(', open);
    if (paren == std::string_view::npos || paren - open > 16) {
      ++pos_;
      return make(TokenKind::invalid, start, line, col);
    }
    std::string close = ")";
    close.append(src_.substr(open, paren - open));
    close.push_back('"');
    size_t end = src_.find(close, paren + 1);
    size_t stop = end == std::string_view::npos ? src_.size() : end + close.size();
    while (pos_ < stop) {
      if (peek() == '\n') {
        ++pos_;
        ++line_;
        line_begin_ = pos_;
      } else {
        ++pos_;
      }
    }
    return make(end == std::string_view::npos ? TokenKind::invalid : TokenKind::string, start, line,
                col);
  }

  std::string_view src_;
  std::vector<Diagnostic>& diags_;
  std::size_t max_tokens_;
  bool over_limit_ = false;
  size_t pos_ = 0;
  size_t line_begin_ = 0;
  size_t column_pos_ = 0;  // column() has counted the line up to here
  int column_count_ = 0;
  int line_ = 1;
  bool line_start_ = true;
  bool stopped_ = false;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, std::vector<Diagnostic>& diagnostics) {
  return Lexer(source, diagnostics, SIZE_MAX).run();
}

std::vector<Token> tokenize(std::string_view source, std::vector<Diagnostic>& diagnostics, std::size_t max_tokens,
                            bool& complete) {
  Lexer lexer(source, diagnostics, max_tokens);
  std::vector<Token> tokens = lexer.run();
  complete = lexer.complete();
  return tokens;
}

std::string_view literal_suffix(std::string_view spelling, bool floating) {
  size_t end = spelling.size();
  bool hex = spelling.size() > 1 && spelling[0] == '0' && (spelling[1] == 'x' || spelling[1] == 'X');
  size_t i = end;
  while (i > 0) {
    char c = spelling[i - 1];
    bool digit_like = is_digit(static_cast<unsigned char>(c)) || c == '.' || c == '\'';
    // In hex literals a-f are digits; in decimal floats 'e' belongs to the exponent.
    if (hex && !floating && is_hex_digit(static_cast<unsigned char>(c))) digit_like = true;
    if (digit_like) break;
    --i;
  }
  return spelling.substr(i);
}

namespace {

enum class DigitsStatus { ok, malformed, too_large };

// The digits of an integer literal (prefix included, suffix excluded).
DigitsStatus integer_digits_value(std::string_view digits, std::uint64_t& value) {
  unsigned base = 10;
  if (digits.size() > 1 && digits[0] == '0') {
    if (digits[1] == 'x' || digits[1] == 'X') {
      base = 16;
      digits.remove_prefix(2);
    } else if (digits[1] == 'b' || digits[1] == 'B') {
      base = 2;
      digits.remove_prefix(2);
    } else {
      base = 8;
    }
  }
  if (digits.empty()) return DigitsStatus::malformed;
  value = 0;
  bool too_large = false;
  for (char c : digits) {
    if (c == '\'') continue;
    unsigned d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return DigitsStatus::malformed;
    if (d >= base) return DigitsStatus::malformed;
    if (value > (UINT64_MAX - d) / base) too_large = true;
    else value = value * base + d;
  }
  return too_large ? DigitsStatus::too_large : DigitsStatus::ok;
}

// u, l, ll in either order and case (not lL): what C++ accepts on integers.
bool valid_integer_suffix(std::string_view suffix) {
  if (!suffix.empty() && (suffix.front() == 'u' || suffix.front() == 'U')) suffix.remove_prefix(1);
  else if (!suffix.empty() && (suffix.back() == 'u' || suffix.back() == 'U')) suffix.remove_suffix(1);
  return suffix.empty() || suffix == "l" || suffix == "L" || suffix == "ll" || suffix == "LL";
}

}  // namespace

std::optional<std::string> string_value(std::string_view spelling, std::string* problem) {
  auto fail = [&](std::string why) -> std::optional<std::string> {
    if (problem) *problem = std::move(why);
    return std::nullopt;
  };
  if (spelling.size() >= 3 && spelling[0] == 'R' && spelling[1] == '"') {
    const std::size_t open = spelling.find('(');
    const std::size_t delimiter = open == std::string_view::npos ? 0 : open - 2;
    if (open == std::string_view::npos || spelling.size() < open + 2 + delimiter + 1) return fail("a malformed raw string");
    return std::string(spelling.substr(open + 1, spelling.size() - (open + 1) - delimiter - 2));
  }
  if (spelling.size() < 2 || spelling.front() != '"' || spelling.back() != '"')
    return fail("a string with a prefix (only plain \"...\" and R\"(...)\" strings are taken)");
  std::string out;
  const std::string_view body = spelling.substr(1, spelling.size() - 2);
  auto digit = [](char c, int base) {
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    return v < base ? v : -1;
  };
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') {
      out += body[i];
      continue;
    }
    if (++i == body.size()) return fail("a string ending in `\\`");
    const char c = body[i];
    static const std::string_view simple = "ntr\\\"'?abfv";
    static const std::string_view meaning = "\n\t\r\\\"'?\a\b\f\v";
    if (std::size_t k = simple.find(c); k != std::string_view::npos) {
      out += meaning[k];
    } else if (digit(c, 8) >= 0) {  // up to three octal digits
      int v = 0;
      std::size_t n = 0;
      for (; n < 3 && i + n < body.size() && digit(body[i + n], 8) >= 0; ++n) v = v * 8 + digit(body[i + n], 8);
      if (v > 255) return fail("an octal escape above \\377");
      out += static_cast<char>(v);
      i += n - 1;
    } else if (c == 'x' && i + 1 < body.size() && digit(body[i + 1], 16) >= 0) {
      int v = 0;
      std::size_t n = 1;
      for (; i + n < body.size() && digit(body[i + n], 16) >= 0; ++n) {
        v = v * 16 + digit(body[i + n], 16);
        if (v > 255) return fail("the hex escape `\\x" + std::string(body.substr(i + 1, std::min<std::size_t>(n, 16))) + "`, above \\xff");
      }
      out += static_cast<char>(v);
      i += n - 1;
    } else if (c == 'u' || c == 'U') {
      return fail(std::string("the universal character name `\\") + std::string(body.substr(i, c == 'u' ? 5 : 9)) +
                  "`, which libcroqjit does not take in strings (write the character itself)");
    } else if (c == 'x') {
      return fail("the escape `\\x` without hex digits");
    } else {
      const std::string shown = static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f
                                    ? describe_character(body.substr(i))
                                    : "`\\" + std::string(1, c) + "`";
      return fail("the unknown escape " + shown + (c == 'e' ? " (a GNU extension: write \\x1b)" : ""));
    }
  }
  return out;
}

std::optional<std::uint64_t> integer_value(std::string_view spelling) {
  std::uint64_t value = 0;
  std::string_view digits = spelling.substr(0, spelling.size() - literal_suffix(spelling, false).size());
  if (integer_digits_value(digits, value) != DigitsStatus::ok) return std::nullopt;
  return value;
}

std::optional<LiteralProblem> integer_literal_problem(std::string_view spelling) {
  std::string_view suffix = literal_suffix(spelling, false);
  std::uint64_t value = 0;
  bool too_large = false;
  switch (integer_digits_value(spelling.substr(0, spelling.size() - suffix.size()), value)) {
    case DigitsStatus::malformed: return LiteralProblem{"invalid integer literal " + quote(spelling), ""};
    case DigitsStatus::too_large: value = UINT64_MAX; too_large = true; break;
    case DigitsStatus::ok: break;
  }
  if (!valid_integer_suffix(suffix))
    return LiteralProblem{"integer literal " + quote(spelling) + " has the unknown suffix " + quote(suffix),
                          "integer suffixes are `u`, `l`, `ll` and their combinations (`10u`, `10ull`)"};
  // An unsigned literal (`u` suffix) takes all 64 bits.
  const bool is_unsigned = suffix.find_first_of("uU") != std::string_view::npos;
  if (too_large && is_unsigned)
    return LiteralProblem{"integer literal " + quote(spelling) + " does not fit in a 64-bit unsigned integer",
                          "the largest is 18446744073709551615"};
  if (value > static_cast<std::uint64_t>(INT64_MAX) && !is_unsigned)
    return LiteralProblem{"integer literal " + quote(spelling) + " does not fit in a 64-bit signed integer",
                          "the largest is 9223372036854775807; write the smallest as `(-9223372036854775807 - 1)`"};
  return std::nullopt;
}

std::optional<LiteralProblem> floating_literal_problem(std::string_view spelling) {
  std::string_view suffix = literal_suffix(spelling, true);
  if (!suffix.empty() && suffix != "f" && suffix != "F")
    return LiteralProblem{"floating literal " + quote(spelling) + " has the unknown suffix " + quote(suffix),
                          "a floating literal takes `f` (float) or no suffix (double)"};
  bool hex = spelling.size() > 1 && spelling[0] == '0' && (spelling[1] == 'x' || spelling[1] == 'X');
  if (hex && spelling.find_first_of("pP") == std::string_view::npos)
    return LiteralProblem{"hexadecimal floating literal " + quote(spelling) + " needs a `p` exponent",
                          "write the power of two after `p`, as in `0x1.8p0`"};
  double value = floating_value(spelling);
  bool is_float = !suffix.empty();
  if (!std::isfinite(value) || (is_float && std::fabs(value) > std::numeric_limits<float>::max()))
    return LiteralProblem{"floating literal " + quote(spelling) + " is out of range for " +
                              (is_float ? "float" : "double"),
                          is_float ? "the largest float is about 3.4e38" : "the largest double is about 1.8e308"};
  return std::nullopt;
}

double floating_value(std::string_view spelling) {
  std::string text;
  for (char c : spelling.substr(0, spelling.size() - literal_suffix(spelling, true).size()))
    if (c != '\'') text.push_back(c);
  return std::strtod(text.c_str(), nullptr);
}

Diagnostic error_at(const Token& token, std::string message, std::string hint) {
  Diagnostic d;
  d.message = std::move(message);
  d.line = token.line;
  d.column = token.column;
  d.length = std::max(1, token.length());  // bytes: the renderer turns them into columns
  d.hint = std::move(hint);
  return d;
}

std::pair<char32_t, std::size_t> utf8_sequence(std::string_view text) {
  if (text.empty()) return {0, 0};
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || text.size() < length) return {0, 0};
  char32_t value = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {0, 0};
    value = (value << 6) | (byte(i) & 0x3F);
  }
  const char32_t smallest = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {0, 0};
  return {value, length};
}

std::string describe_character(std::string_view text) {
  char buf[16];
  const auto [value, length] = utf8_sequence(text);
  if (text.empty()) return "end of file";
  if (length == 0) {  // a byte that starts no UTF-8 character
    std::snprintf(buf, sizeof buf, "`\\x%02X`", static_cast<unsigned char>(text[0]));
  } else if (value == 0) {
    return "`\\0` (a NUL byte)";
  } else if (value < 0x20 || value == 0x7F) {
    std::snprintf(buf, sizeof buf, "`\\x%02X`", static_cast<unsigned>(value));
  } else if (value < 0x80) {
    return "`" + std::string(1, static_cast<char>(value)) + "`";
  } else {
    std::snprintf(buf, sizeof buf, "`U+%04X`", static_cast<unsigned>(value));
  }
  return buf;
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::end_of_file) return "end of file";
  if (token.kind == TokenKind::invalid && !token.text.empty() && token.text[0] != '"' && token.text[0] != '\'')
    return describe_character(token.text);
  return quote(token.text);
}

std::string quote(std::string_view text, std::size_t max_bytes) {
  std::string shown(text.substr(0, max_bytes));
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  if (text.size() > max_bytes) shown += "...";
  return "`" + shown + "`";
}

}  // namespace croq::frontend
