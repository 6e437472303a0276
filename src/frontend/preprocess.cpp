// Preprocessor: walks the token stream once, runs directives, drops inactive
// regions and expands object-like defines. See preprocess.hpp for the
// precedence of option defines over source defines.
#include "frontend/preprocess.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

namespace croq::frontend {
namespace {

constexpr std::array<std::string_view, 17> kDirectives = {
    "define", "undef",   "if",    "ifdef", "ifndef",  "elif",    "else",   "endif",  "include",
    "pragma", "error",   "warning", "line", "import", "elifdef", "elifndef", "include_next"};

struct Macro {
  std::vector<Token> body;
  bool function_like = false;
  bool from_options = false;
};

struct Conditional {
  Token where;          // the #if token, for "unterminated #if"
  bool parent_active;   // whether the enclosing region is active
  bool taken = false;   // some branch of this chain was active
  bool active = false;  // the current branch is active
  bool seen_else = false;
};

std::string join_text(const std::vector<Token>& tokens) {
  std::string text;
  for (const Token& t : tokens) {
    if (!text.empty() && t.space_before) text.push_back(' ');
    text.append(t.text);
  }
  return text;
}

// Integer constant expressions of #if lines and define values, C rules:
// cond ? a : b, ||, &&, |, ^, &, == !=, < > <= >=, << >>, + -, * / %, unary.
class ConstantEvaluator {
 public:
  explicit ConstantEvaluator(const std::vector<Token>& tokens) : t_(tokens) {}

  // nullopt when the tokens are not a well-formed constant expression.
  std::optional<std::int64_t> evaluate() {
    std::int64_t v = conditional(0);
    if (failed_ || i_ != t_.size()) return std::nullopt;
    return v;
  }
  const std::string& error() const { return error_; }
  size_t error_index() const { return std::min(i_, t_.empty() ? 0 : t_.size() - 1); }

 private:
  bool at(std::string_view s) const { return i_ < t_.size() && t_[i_].is(s) && t_[i_].kind == TokenKind::punct; }
  void fail(std::string msg) {
    if (!failed_) error_ = std::move(msg);
    failed_ = true;
  }

  std::int64_t conditional(int depth) {
    std::int64_t c = binary(0, depth);
    if (!at("?")) return c;
    ++i_;
    std::int64_t a = conditional(depth + 1);
    if (!at(":")) {
      fail("expected `:` in the conditional expression");
      return 0;
    }
    ++i_;
    std::int64_t b = conditional(depth + 1);
    return c ? a : b;
  }

  static int precedence(std::string_view op) {
    static constexpr std::array<std::pair<std::string_view, int>, 18> table = {{
        {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6},
        {"<", 7}, {">", 7}, {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8},
        {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}}};
    for (const auto& [name, p] : table)
      if (name == op) return p;
    return 0;
  }

  std::int64_t binary(int min_precedence, int depth) {
    std::int64_t lhs = unary(depth);
    while (i_ < t_.size() && t_[i_].kind == TokenKind::punct && !failed_) {
      std::string_view op = t_[i_].text;
      int p = precedence(op);
      if (p == 0 || p <= min_precedence) break;
      ++i_;
      std::int64_t rhs = binary(p, depth + 1);
      lhs = apply(op, lhs, rhs);
    }
    return lhs;
  }

  std::int64_t apply(std::string_view op, std::int64_t a, std::int64_t b) {
    auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    if ((op == "/" || op == "%") && b == 0) {
      fail("division by zero in a constant expression");
      return 0;
    }
    if (op == "||") return a || b;
    if (op == "&&") return a && b;
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "&") return a & b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == ">") return a > b;
    if (op == "<=") return a <= b;
    if (op == ">=") return a >= b;
    if (op == "<<") return static_cast<std::int64_t>(ua << (ub & 63));
    if (op == ">>") return a >> (ub & 63);
    if (op == "+") return static_cast<std::int64_t>(ua + ub);
    if (op == "-") return static_cast<std::int64_t>(ua - ub);
    if (op == "*") return static_cast<std::int64_t>(ua * ub);
    if (a == INT64_MIN && b == -1) return op == "/" ? a : 0;
    if (op == "/") return a / b;
    return a % b;
  }

  std::int64_t unary(int depth) {
    if (depth > 200) {
      fail("constant expression nested too deeply");
      return 0;
    }
    if (i_ >= t_.size()) {
      fail("expected a value, found end of line");
      return 0;
    }
    const Token& t = t_[i_];
    if (t.kind == TokenKind::punct) {
      if (t.text == "(") {
        ++i_;
        std::int64_t v = conditional(depth + 1);
        if (!at(")")) {
          fail("expected `)` in the constant expression");
          return 0;
        }
        ++i_;
        return v;
      }
      ++i_;
      if (t.text == "-") return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(unary(depth + 1)));
      if (t.text == "+") return unary(depth + 1);
      if (t.text == "!") return !unary(depth + 1);
      if (t.text == "~") return ~unary(depth + 1);
      --i_;
    }
    if (t.kind == TokenKind::integer) {
      ++i_;
      std::optional<std::uint64_t> v = integer_value(t.text);
      if (!v) fail("invalid integer literal " + describe(t));
      return static_cast<std::int64_t>(v.value_or(0));
    }
    if (t.kind == TokenKind::identifier) {  // names left after expansion are 0, as in C
      ++i_;
      return t.text == "true" ? 1 : 0;
    }
    fail("expected a value, found " + describe(t));
    return 0;
  }

  const std::vector<Token>& t_;
  size_t i_ = 0;
  bool failed_ = false;
  std::string error_;
};

class Preprocessor {
 public:
  Preprocessor(const std::vector<Token>& tokens, const std::map<std::string, DefineValue>& options,
               std::vector<Diagnostic>& diagnostics)
      : in_(tokens), options_(options), diags_(diagnostics) {}

  PreprocessedTokens run() {
    install_option_defines();
    out_.tokens.reserve(in_.size());
    size_t end = in_.size() - 1;  // the end_of_file token
    size_t pos = 0;
    while (pos < end) {
      if (is_directive(pos)) {
        size_t next = line_end(pos);
        directive(pos, next);
        pos = next;
        follows_directive_ = true;
        continue;
      }
      if (active()) {
        std::vector<std::string_view> expanding;
        emit(in_[pos], in_[pos], expanding);
        follows_directive_ = false;
      }
      ++pos;
    }
    for (const Conditional& c : conditionals_)
      diags_.push_back(error_at(c.where, "unterminated `#" + std::string(c.where.text) + "`: no matching `#endif`",
                                "add `#endif` at the end of the conditional block"));
    Token eof = in_.back();
    eof.follows_directive = follows_directive_;
    out_.tokens.push_back(eof);
    return std::move(out_);
  }

 private:
  bool active() const { return conditionals_.empty() || conditionals_.back().active; }

  bool is_directive(size_t pos) const {
    const Token& hash = in_[pos];
    if (!hash.is("#") || hash.kind != TokenKind::punct || !hash.at_line_start) return false;
    const Token& next = in_[pos + 1];
    if (next.at_line_start || next.kind == TokenKind::integer) return true;
    return next.is_identifier() &&
           std::find(kDirectives.begin(), kDirectives.end(), next.text) != kDirectives.end();
  }

  size_t line_end(size_t pos) const {
    size_t j = pos + 1;
    while (j < in_.size() - 1 && !in_[j].at_line_start) ++j;
    return j;
  }

  void install_option_defines() {
    for (const auto& [name, value] : options_) {
      std::string text;
      if (const auto* i = std::get_if<std::int64_t>(&value)) {
        text = *i < 0 ? "(" + std::to_string(*i) + ")" : std::to_string(*i);
      } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", std::get<double>(value));
        text = buf;
        if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
        if (text[0] == '-') text = "(" + text + ")";
      }
      out_.storage.push_back(std::make_unique<std::string>(text));
      std::vector<Diagnostic> ignored;
      std::vector<Token> body = tokenize(*out_.storage.back(), ignored);
      body.pop_back();
      Macro m;
      m.body = std::move(body);
      m.from_options = true;
      macros_[name] = std::move(m);
      ast::Define d;
      d.name = name;
      d.text = text;
      d.value = value;
      d.from_options = true;
      out_.defines[name] = d;
    }
  }

  // Expands object-like defines recursively; `expanding` stops self-reference.
  void emit(const Token& t, const Token& site, std::vector<std::string_view>& expanding) {
    if (t.is_identifier()) {
      auto it = macros_.find(t.text);
      if (it != macros_.end() && !it->second.function_like &&
          std::find(expanding.begin(), expanding.end(), t.text) == expanding.end() &&
          expanding.size() < 64) {
        expanding.push_back(t.text);
        bool first = true;
        for (const Token& b : it->second.body) {
          Token copy = b;
          copy.line = site.line;
          copy.column = site.column;
          copy.offset = site.offset;
          copy.at_line_start = first && site.at_line_start;
          copy.space_before = first ? site.space_before : b.space_before;
          emit(copy, site, expanding);
          first = false;
        }
        expanding.pop_back();
        return;
      }
    }
    Token copy = t;
    copy.follows_directive = follows_directive_;
    follows_directive_ = false;
    out_.tokens.push_back(copy);
  }

  // tokens [begin, end) are `# name args...`
  void directive(size_t begin, size_t end) {
    if (begin + 1 >= end || !in_[begin + 1].is_identifier()) return;  // `#` alone, `# 12 "file"`
    const Token& name = in_[begin + 1];
    std::string_view d = name.text;
    size_t args = begin + 2;
    if (d == "ifdef" || d == "ifndef") {
      bool defined = args < end && in_[args].is_identifier() && is_defined(in_[args].text);
      if (args >= end) diags_.push_back(error_at(name, "expected a name after `#" + std::string(d) + "`"));
      push_conditional(name, d == "ifdef" ? defined : !defined);
    } else if (d == "if") {
      push_conditional(name, active() && condition(name, args, end));
    } else if (d == "elif" || d == "elifdef" || d == "elifndef") {
      if (conditionals_.empty() || conditionals_.back().seen_else) {
        diags_.push_back(error_at(name, conditionals_.empty() ? "`#" + std::string(d) + "` without `#if`"
                                                              : "`#" + std::string(d) + "` after `#else`"));
        return;
      }
      Conditional& c = conditionals_.back();
      bool value = false;
      if (!c.taken && c.parent_active) {
        if (d == "elif") value = condition(name, args, end);
        else value = (args < end && is_defined(in_[args].text)) == (d == "elifdef");
      }
      c.active = value;
      c.taken = c.taken || value;
    } else if (d == "else") {
      if (conditionals_.empty() || conditionals_.back().seen_else) {
        diags_.push_back(error_at(name, conditionals_.empty() ? "`#else` without `#if`" : "`#else` after `#else`"));
        return;
      }
      Conditional& c = conditionals_.back();
      c.seen_else = true;
      c.active = c.parent_active && !c.taken;
      c.taken = true;
    } else if (d == "endif") {
      if (conditionals_.empty()) {
        diags_.push_back(error_at(name, "`#endif` without `#if`", "remove it, or add the matching `#if`"));
        return;
      }
      conditionals_.pop_back();
    } else if (!active()) {
      return;
    } else if (d == "define") {
      define(name, args, end);
    } else if (d == "undef") {
      if (args < end && in_[args].is_identifier()) {
        auto it = macros_.find(in_[args].text);
        if (it != macros_.end() && !it->second.from_options) {
          out_.defines.erase(std::string(in_[args].text));
          macros_.erase(it);
        }
      }
    } else if (d == "error" || d == "warning") {
      // `#error` in an active region guards a configuration: report it with its text.
      std::vector<Token> text(in_.begin() + args, in_.begin() + end);
      Diagnostic diag = error_at(name, "#" + std::string(d) + ": " + join_text(text));
      if (d == "warning") diag.severity = Severity::warning;
      diags_.push_back(std::move(diag));
    }
    // #include, #pragma and the other host directives are the host compiler's business.
  }

  bool is_defined(std::string_view name) const { return macros_.find(name) != macros_.end(); }

  void push_conditional(const Token& where, bool value) {
    Conditional c;
    c.where = where;
    c.parent_active = active();
    c.active = c.parent_active && value;
    c.taken = c.active;
    conditionals_.push_back(c);
  }

  // Evaluates an #if / #elif line: `defined X` first, then expansion, then arithmetic.
  bool condition(const Token& directive, size_t begin, size_t end) {
    std::vector<Token> expanded;
    for (size_t i = begin; i < end; ++i) {
      if (in_[i].is("defined")) {
        bool paren = i + 1 < end && in_[i + 1].is("(");
        size_t n = i + (paren ? 2 : 1);
        Token one = in_[i];
        one.kind = TokenKind::integer;
        one.text = n < end && in_[n].is_identifier() && is_defined(in_[n].text) ? "1" : "0";
        expanded.push_back(one);
        i = n + (paren ? 1 : 0);
        continue;
      }
      size_t before = out_.tokens.size();
      std::vector<std::string_view> expanding;
      emit(in_[i], in_[i], expanding);
      expanded.insert(expanded.end(), out_.tokens.begin() + before, out_.tokens.end());
      out_.tokens.resize(before);
    }
    if (expanded.empty()) {
      diags_.push_back(error_at(directive, "expected an expression after `#" + std::string(directive.text) + "`"));
      return false;
    }
    ConstantEvaluator eval(expanded);
    std::optional<std::int64_t> v = eval.evaluate();
    if (!v) {
      std::string msg = eval.error().empty() ? "unexpected " + describe(expanded[eval.error_index()]) + " in `#" +
                                                   std::string(directive.text) + "` expression"
                                             : eval.error();
      diags_.push_back(error_at(expanded[eval.error_index()], msg));
      return false;
    }
    return *v != 0;
  }

  void define(const Token& directive, size_t begin, size_t end) {
    if (begin >= end || !in_[begin].is_identifier()) {
      diags_.push_back(error_at(begin < end ? in_[begin] : directive,
                                "expected a name after `#define`, found " +
                                    (begin < end ? describe(in_[begin]) : std::string("end of line"))));
      return;
    }
    const Token& name = in_[begin];
    Macro m;
    size_t body = begin + 1;
    // `#define F(x) ...` (no space before the parenthesis) takes arguments; the
    // parser sees its uses as calls, so it is recorded and not expanded.
    if (body < end && in_[body].is("(") && !in_[body].space_before) {
      m.function_like = true;
      while (body < end && !in_[body].is(")")) ++body;
      if (body < end) ++body;
    }
    m.body.assign(in_.begin() + body, in_.begin() + end);
    std::string key(name.text);
    auto existing = macros_.find(key);
    if (existing != macros_.end() && existing->second.from_options) {
      out_.defines[key].line = name.line;  // the option value stays
      return;
    }
    ast::Define d;
    d.name = key;
    d.text = join_text(m.body);
    d.function_like = m.function_like;
    d.line = name.line;
    macros_[key] = std::move(m);
    if (!d.function_like) d.value = constant_value(macros_[key].body);
    out_.defines[key] = std::move(d);
  }

  std::optional<DefineValue> constant_value(const std::vector<Token>& body) {
    if (body.empty()) return std::nullopt;
    // A float literal, maybe negated or parenthesized.
    size_t i = 0, n = body.size();
    while (i < n && body[i].is("(") && body[n - 1].is(")")) ++i, --n;
    bool negative = i < n && body[i].is("-");
    if (i + negative + 1 == n && body[i + negative].kind == TokenKind::floating) {
      double v = floating_value(body[i + negative].text);
      return negative ? -v : v;
    }
    std::vector<Token> expanded;
    std::vector<std::string_view> expanding;
    size_t before = out_.tokens.size();
    bool saved = follows_directive_;
    for (const Token& t : body) emit(t, t, expanding);
    expanded.assign(out_.tokens.begin() + before, out_.tokens.end());
    out_.tokens.resize(before);
    follows_directive_ = saved;
    for (const Token& t : expanded)
      if (t.is_identifier() || t.kind == TokenKind::floating) return std::nullopt;
    ConstantEvaluator eval(expanded);
    if (auto v = eval.evaluate()) return *v;
    return std::nullopt;
  }

  const std::vector<Token>& in_;
  const std::map<std::string, DefineValue>& options_;
  std::vector<Diagnostic>& diags_;
  std::map<std::string, Macro, std::less<>> macros_;
  std::vector<Conditional> conditionals_;
  PreprocessedTokens out_;
  bool follows_directive_ = false;
};

}  // namespace

PreprocessedTokens preprocess(const std::vector<Token>& tokens,
                              const std::map<std::string, DefineValue>& option_defines,
                              std::vector<Diagnostic>& diagnostics) {
  return Preprocessor(tokens, option_defines, diagnostics).run();
}

}  // namespace croq::frontend
