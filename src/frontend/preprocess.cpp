// Preprocessor: walks the token stream once, runs directives, drops inactive
// regions and expands object-like defines. See preprocess.hpp for the
// precedence of option defines over source defines.
#include "frontend/preprocess.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string_view>

#include "frontend/limits.hpp"
#include "frontend/preprocess_expr.hpp"

namespace croq::frontend {
namespace {

constexpr std::array<std::string_view, 17> kDirectives = {
    "define", "undef",   "if",    "ifdef", "ifndef",  "elif",    "else",   "endif",  "include",
    "pragma", "error",   "warning", "line", "import", "elifdef", "elifndef", "include_next"};

struct Macro {
  std::vector<Token> body;
  bool function_like = false;
  std::vector<std::string_view> params;  // of a function-like define
  bool expandable_call = false;  // function-like with plain parameters, no `...`, `#` or `##`
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

// One use of a define being expanded, with its share of the budget.
struct Expansion {
  Expansion(const Token& use, bool quiet_problems) : site(use), quiet(quiet_problems) {}
  const Token& site;  // the name as written: expanded tokens take its location
  bool quiet;         // computing a define's value: problems only mean "not a constant"
  std::size_t tokens = 0;
  std::vector<std::string_view> active;  // defines being expanded; stops self-reference
  bool too_large = false;
  std::string_view too_deep;  // the define left unexpanded at the nesting limit
  bool calls = false;         // function-like defines expand too (inside a __co__ function)
};

bool is_identifier_text(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

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
    while (pos < end && !out_.fatal) {
      if (is_directive(pos)) {
        size_t next = line_end(pos);
        directive(pos, next);
        pos = next;
        follows_directive_ = true;
        continue;
      }
      if (active()) {
        track_co_function(in_[pos]);
        if (in_co_function_) {
          if (std::size_t after = expand_source_call(pos, end); after != pos) {
            pos = after;
            follows_directive_ = false;
            continue;
          }
        }
        emit_source(in_[pos]);
        follows_directive_ = false;
      }
      ++pos;
    }
    if (!out_.fatal)
      for (const Conditional& c : conditionals_)
        report(error_at(c.where, "unterminated `#" + std::string(c.where.text) + "`: no matching `#endif`",
                        "add `#endif` at the end of the conditional block"));
    Token eof = in_.back();
    eof.follows_directive = follows_directive_;
    out_.tokens.push_back(eof);
    return std::move(out_);
  }

 private:
  bool active() const { return conditionals_.empty() || conditionals_.back().active; }

  // Keeps at most kMaxDiagnostics; the rest are only counted.
  void report(Diagnostic d) {
    if (diags_.size() < limits::kMaxDiagnostics) diags_.push_back(std::move(d));
    else ++out_.dropped_diagnostics;
  }

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
      std::optional<std::string> text = option_text(name, value);
      if (!text) continue;
      out_.storage.push_back(std::make_unique<std::string>(*text));
      std::vector<Diagnostic> ignored;
      std::vector<Token> body = tokenize(*out_.storage.back(), ignored);
      body.pop_back();
      Macro m;
      m.body = std::move(body);
      m.from_options = true;
      macros_[name] = std::move(m);
      ast::Define d;
      d.name = name;
      d.text = *text;
      d.value = value;
      d.from_options = true;
      out_.defines[name] = d;
    }
  }

  // The source text of an option define, or nullopt (reported) when the name
  // is not an identifier or the value is not a finite number.
  std::optional<std::string> option_text(const std::string& name, const DefineValue& value) {
    auto refuse = [&](std::string why, std::string hint) {
      Diagnostic d;
      d.message = "the define " + quote(name) + " (CompileOptions::defines, --define) " + why;
      d.hint = std::move(hint);
      report(std::move(d));
      return std::nullopt;
    };
    if (!is_identifier_text(name))
      return refuse("is not a name", "a define's name is a letter or `_` followed by letters, digits and `_`");
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      if (*i == INT64_MIN) return "(-9223372036854775807 - 1)";  // the literal 9223372036854775808 does not fit
      return *i < 0 ? "(" + std::to_string(*i) + ")" : std::to_string(*i);
    }
    double v = std::get<double>(value);
    if (!std::isfinite(v)) {
      std::string spelled = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
      return refuse("is " + spelled + ", not a finite number", "give an integer or a finite floating value");
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string text = buf;
    if (text.find_first_of(".eE") == std::string::npos) text += ".0";
    if (text[0] == '-') text = "(" + text + ")";
    return text;
  }

  // The define `t` names, when it expands here (object-like, not already being expanded).
  const Macro* expandable(const Token& t, const std::vector<std::string_view>& active) const {
    if (!t.is_identifier()) return nullptr;
    auto it = macros_.find(t.text);
    if (it == macros_.end() || it->second.function_like) return nullptr;
    if (std::find(active.begin(), active.end(), t.text) != active.end()) return nullptr;
    return &it->second;
  }

  void push(const Token& t) {
    Token copy = t;
    copy.follows_directive = follows_directive_;
    follows_directive_ = false;
    out_.tokens.push_back(copy);
  }

  // A token of the source text in an active region.
  void emit_source(const Token& t) {
    if (expandable(t, {})) expand_use(t, false, [&](Expansion& e) { expand(t, e); });
    else push(t);
  }

  // Function-like defines expand inside `__co__` and `__co_device__`
  // functions only: host code keeps its C++ macros for the C++ compiler.
  void track_co_function(const Token& t) {
    if (t.is("__co__") || t.is("__co_device__")) {
      co_pending_ = true;
    } else if (co_pending_ && t.is("{")) {
      co_pending_ = false;
      in_co_function_ = true;
      co_depth_ = 1;
    } else if (co_pending_ && t.is(";")) {
      co_pending_ = false;  // a declaration
    } else if (in_co_function_ && (t.is("{") || t.is("}"))) {
      co_depth_ += t.is("{") ? 1 : -1;
      if (co_depth_ == 0) in_co_function_ = false;
    }
  }

  // The function-like define `seq[i]` names, when a `(` follows it and it
  // may expand there.
  const Macro* callable(const std::vector<Token>& seq, std::size_t i, std::size_t end,
                        const std::vector<std::string_view>& active) const {
    if (!seq[i].is_identifier() || i + 1 >= end || !seq[i + 1].is("(")) return nullptr;
    auto it = macros_.find(seq[i].text);
    if (it == macros_.end() || !it->second.function_like) return nullptr;
    if (std::find(active.begin(), active.end(), seq[i].text) != active.end()) return nullptr;
    return &it->second;
  }

  // The arguments of a call whose `(` is seq[open]: top-level commas split
  // them. The index of the closing `)`, or 0 when there is none before `end`
  // or a directive starts inside (`stop_at_directives`, the source).
  std::size_t call_arguments(const std::vector<Token>& seq, std::size_t open, std::size_t end,
                             std::vector<std::vector<Token>>& args, bool stop_at_directives) const {
    args.assign(1, {});
    int depth = 0;
    for (std::size_t j = open + 1; j < end; ++j) {
      if (stop_at_directives && is_directive(j)) return 0;
      const Token& t = seq[j];
      if (t.is("(") || t.is("[") || t.is("{")) ++depth;
      if (t.is(")") && depth == 0) return j;
      if (t.is(")") || t.is("]") || t.is("}")) --depth;
      if (t.is(",") && depth == 0) args.emplace_back();
      else args.back().push_back(t);
    }
    return 0;
  }

  // A use of a function-like define in the source at `pos`: expanded into
  // out_.tokens, and the position after its `)`; `pos` itself when it is
  // none (no define, no `(`, no closing `)`).
  std::size_t expand_source_call(std::size_t pos, std::size_t end) {
    const Macro* macro = callable(in_, pos, end, {});
    if (!macro) return pos;
    std::vector<std::vector<Token>> args;
    const std::size_t close = call_arguments(in_, pos + 1, end, args, true);
    if (close == 0) {
      report(error_at(in_[pos], "the arguments of " + quote(in_[pos].text) + " have no closing `)`",
                      "close the define's argument list on the lines before the next directive"));
      return pos;
    }
    if (!call_fits(in_[pos], *macro, args)) return pos;
    expand_use(in_[pos], false, [&](Expansion& e) {
      e.calls = true;
      expand_call(in_[pos], *macro, args, e);
    });
    return close + 1;
  }

  // Whether `args` suit `macro` (reported when not).
  bool call_fits(const Token& name, const Macro& macro, std::vector<std::vector<Token>>& args) {
    if (macro.params.empty() && args.size() == 1 && args[0].empty()) args.clear();  // F()
    if (!macro.expandable_call) {
      report(error_at(name, "the define " + quote(name.text) +
                                " uses `...`, `#` or `##`, which libcroqjit does not expand yet",
                      "write the expression out, or use a define with plain parameters"));
      return false;
    }
    if (args.size() != macro.params.size()) {
      report(error_at(name, quote(name.text) + " takes " + std::to_string(macro.params.size()) + " argument" +
                                (macro.params.size() == 1 ? "" : "s") + ", got " + std::to_string(args.size())));
      return false;
    }
    return true;
  }

  // The body of `macro` with each parameter replaced by its argument, each
  // argument expanded first (as C does), then the result expanded again
  // with `macro` itself left alone; every token takes the use's location.
  void expand_call(const Token& name, const Macro& macro, const std::vector<std::vector<Token>>& args, Expansion& e) {
    std::vector<std::vector<Token>> expanded(args.size());
    for (std::size_t a = 0; a < args.size(); ++a) {
      const std::size_t before = out_.tokens.size();
      expand_sequence(args[a], e);
      expanded[a].assign(out_.tokens.begin() + before, out_.tokens.end());
      out_.tokens.resize(before);
    }
    std::vector<Token> substituted;
    for (const Token& b : macro.body) {
      auto p = std::find(macro.params.begin(), macro.params.end(), b.text);
      if (b.is_identifier() && p != macro.params.end()) {
        const auto& arg = expanded[p - macro.params.begin()];
        substituted.insert(substituted.end(), arg.begin(), arg.end());
      } else {
        substituted.push_back(b);
      }
    }
    for (std::size_t i = 0; i < substituted.size(); ++i) located_at(substituted[i], e.site, i == 0);
    e.active.push_back(name.text);
    expand_sequence(substituted, e);
    e.active.pop_back();
  }

  // `t` given the place of the use `site`, as every expanded token.
  static void located_at(Token& t, const Token& site, bool first) {
    const bool space = t.space_before;
    t.line = site.line;
    t.column = site.column;
    t.offset = site.offset;
    t.at_line_start = first && site.at_line_start;
    t.space_before = first ? site.space_before : space;
  }

  // Expands the tokens of `seq` in order: function-like uses (when
  // e.calls) with their arguments, every other token as expand() does.
  void expand_sequence(const std::vector<Token>& seq, Expansion& e) {
    for (std::size_t i = 0; i < seq.size(); ++i) {
      if (e.calls && !e.too_large && !budget_exhausted_) {
        if (const Macro* macro = callable(seq, i, seq.size(), e.active)) {
          std::vector<std::vector<Token>> args;
          const std::size_t close = call_arguments(seq, i + 1, seq.size(), args, false);
          if (close != 0 && e.active.size() < limits::kMaxDefineNesting && call_fits(seq[i], *macro, args)) {
            expand_call(seq[i], *macro, args, e);
            i = close;
            continue;
          }
        }
      }
      expand(seq[i], e);
    }
  }

  // Expands one use of a define into out_.tokens within the limits of
  // limits.hpp. Returns false when a limit was hit: nothing is emitted then
  // (a too deep chain keeps its unexpanded name), and unless `quiet` it is
  // an error naming the define.
  bool expand_use(const Token& site, bool quiet, const std::function<void(Expansion&)>& body) {
    std::size_t before = out_.tokens.size();
    Expansion e(site, quiet);
    e.calls = in_co_function_;
    body(e);
    if (budget_exhausted_) {
      out_.tokens.resize(before);
      if (!out_.fatal)
        report(error_at(site, "defines expand to more than " + limits::group_digits(limits::kMaxExpandedTokens) +
                                  " tokens in this source; stopped at " + quote(site.text),
                        "define values directly instead of through other defines"));
      out_.fatal = true;
      return false;
    }
    if (e.too_large) {
      out_.tokens.resize(before);
      if (quiet) return false;
      report(error_at(site, "the expansion of " + quote(site.text) + " grows past " +
                                limits::group_digits(limits::kMaxTokensPerDefineUse) +
                                " tokens (the limit for one use of a define)",
                      "a define that uses another define more than once doubles at every level; define the value "
                      "directly"));
      out_.fatal = true;  // what follows would only be errors about the missing tokens
      return false;
    }
    if (!e.too_deep.empty()) {
      if (!quiet)
        report(error_at(site, "the expansion of " + quote(site.text) + " goes through more than " +
                                  std::to_string(limits::kMaxDefineNesting) + " nested defines; " +
                                  quote(e.too_deep) + " is not expanded",
                        "shorten the chain of `#define`s"));
      return false;
    }
    return true;
  }

  // `t` itself when it is no define (located at the use), else its expansion.
  void expand(const Token& t, Expansion& e) {
    if (e.too_large || budget_exhausted_) return;
    if (++e.tokens > limits::kMaxTokensPerDefineUse) {
      e.too_large = true;
      return;
    }
    if (++expanded_tokens_ > limits::kMaxExpandedTokens) {
      budget_exhausted_ = true;
      return;
    }
    const Macro* macro = expandable(t, e.active);
    if (macro && e.active.size() >= limits::kMaxDefineNesting) {
      if (e.too_deep.empty()) e.too_deep = t.text;
      macro = nullptr;
    }
    if (!macro) {
      push(t);
      return;
    }
    e.active.push_back(t.text);
    std::vector<Token> body = macro->body;
    for (std::size_t i = 0; i < body.size(); ++i) located_at(body[i], e.site, i == 0);
    expand_sequence(body, e);
    e.active.pop_back();
  }

  // tokens [begin, end) are `# name args...`
  void directive(size_t begin, size_t end) {
    if (begin + 1 >= end || !in_[begin + 1].is_identifier()) return;  // `#` alone, `# 12 "file"`
    const Token& name = in_[begin + 1];
    std::string_view d = name.text;
    size_t args = begin + 2;
    if (d == "ifdef" || d == "ifndef") {
      bool defined = args < end && in_[args].is_identifier() && is_defined(in_[args].text);
      if (args >= end) report(error_at(name, "expected a name after `#" + std::string(d) + "`"));
      push_conditional(name, d == "ifdef" ? defined : !defined);
    } else if (d == "if") {
      push_conditional(name, active() && condition(name, args, end));
    } else if (d == "elif" || d == "elifdef" || d == "elifndef") {
      if (conditionals_.empty() || conditionals_.back().seen_else) {
        report(error_at(name, conditionals_.empty() ? "`#" + std::string(d) + "` without `#if`"
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
        report(error_at(name, conditionals_.empty() ? "`#else` without `#if`" : "`#else` after `#else`"));
        return;
      }
      Conditional& c = conditionals_.back();
      c.seen_else = true;
      c.active = c.parent_active && !c.taken;
      c.taken = true;
    } else if (d == "endif") {
      if (conditionals_.empty()) {
        report(error_at(name, "`#endif` without `#if`", "remove it, or add the matching `#if`"));
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
      report(std::move(diag));
    } else if (d == "pragma" && args < end && in_[args].is("croq")) {
      // `#pragma croq ...` is the parser's (intrinsic registrations, scoped
      // by the statement list it stands in): its words, after a pragma token.
      Token pragma = name;
      pragma.kind = TokenKind::pragma;
      push(pragma);
      for (size_t i = args; i < end; ++i) push(in_[i]);
    }
    // #include, other #pragmas and the other host directives are the host compiler's business.
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

  // The tokens [begin, end) with their defines expanded, as they are in the
  // output: for #if lines and define values. False when a limit was hit.
  bool expand_tokens(const std::vector<Token>& tokens, size_t begin, size_t end, std::vector<Token>& expanded,
                     bool quiet, bool handle_defined) {
    size_t before = out_.tokens.size();
    bool saved = follows_directive_;
    bool ok = true;
    for (size_t i = begin; i < end && ok; ++i) {
      const Token& t = tokens[i];
      if (handle_defined && t.is("defined")) {  // `defined X`, `defined(X)` before expansion
        bool paren = i + 1 < end && tokens[i + 1].is("(");
        size_t name = i + (paren ? 2 : 1);
        Token one = t;
        one.kind = TokenKind::integer;
        one.text = name < end && tokens[name].is_identifier() && is_defined(tokens[name].text) ? "1" : "0";
        out_.tokens.push_back(one);
        i = name + (paren ? 1 : 0);
        continue;
      }
      if (expandable(t, {})) ok = expand_use(t, quiet, [&](Expansion& e) { expand(t, e); });
      else push(t);
    }
    expanded.assign(out_.tokens.begin() + before, out_.tokens.end());
    out_.tokens.resize(before);
    follows_directive_ = saved;
    return ok;
  }

  // Evaluates an #if / #elif line: `defined X` first, then expansion, then arithmetic.
  bool condition(const Token& directive, size_t begin, size_t end) {
    std::vector<Token> expanded;
    if (!expand_tokens(in_, begin, end, expanded, false, true)) return false;
    std::string where = "`#" + std::string(directive.text) + "`";
    if (expanded.empty()) {
      report(error_at(directive, "expected an expression after " + where));
      return false;
    }
    ConstantResult r = evaluate_constant(expanded);
    if (!r.value) {
      std::string msg = r.error.empty() ? "unexpected " + describe(expanded[r.error_token]) + " in " + where +
                                              " expression"
                        : r.arithmetic_fault ? r.error + " in the " + where + " condition"
                                             : r.error;
      report(error_at(expanded[r.error_token], msg, r.hint));
      return false;
    }
    return *r.value != 0;
  }

  void define(const Token& directive, size_t begin, size_t end) {
    if (begin >= end || !in_[begin].is_identifier()) {
      report(error_at(begin < end ? in_[begin] : directive,
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
      m.expandable_call = true;
      for (++body; body < end && !in_[body].is(")"); ++body) {
        if (in_[body].is_identifier()) m.params.push_back(in_[body].text);
        else if (!in_[body].is(",")) m.expandable_call = false;  // `...`
      }
      if (body < end) ++body;
    }
    m.body.assign(in_.begin() + body, in_.begin() + end);
    for (const Token& t : m.body)
      if (t.is("#") || t.is("##")) m.expandable_call = false;
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

  // The number a define's body stands for, when it is one.
  std::optional<DefineValue> constant_value(const std::vector<Token>& body) {
    if (body.empty()) return std::nullopt;
    // A float literal, maybe negated or parenthesized.
    size_t i = 0, n = body.size();
    while (i < n && body[i].is("(") && body[n - 1].is(")")) ++i, --n;
    bool negative = i < n && body[i].is("-");
    if (i + negative + 1 == n && body[i + negative].kind == TokenKind::floating) {
      if (floating_literal_problem(body[i + negative].text)) return std::nullopt;  // reported where it is used
      double v = floating_value(body[i + negative].text);
      return negative ? -v : v;
    }
    std::vector<Token> expanded;
    if (!expand_tokens(body, 0, body.size(), expanded, true, false)) return std::nullopt;
    for (const Token& t : expanded)
      if (t.is_identifier() || t.kind == TokenKind::floating) return std::nullopt;
    ConstantResult r = evaluate_constant(expanded);
    if (r.value && r.is_unsigned && *r.value < 0) return std::nullopt;  // above INT64_MAX: no signed constant
    return r.value;
  }

  const std::vector<Token>& in_;
  const std::map<std::string, DefineValue>& options_;
  std::vector<Diagnostic>& diags_;
  std::map<std::string, Macro, std::less<>> macros_;
  std::vector<Conditional> conditionals_;
  PreprocessedTokens out_;
  bool follows_directive_ = false;
  bool co_pending_ = false;      // after `__co__`, before its body's `{`
  bool in_co_function_ = false;  // inside a `__co__` function's body
  int co_depth_ = 0;
  std::size_t expanded_tokens_ = 0;  // by all define expansions, against kMaxExpandedTokens
  bool budget_exhausted_ = false;
};

}  // namespace

PreprocessedTokens preprocess(const std::vector<Token>& tokens,
                              const std::map<std::string, DefineValue>& option_defines,
                              std::vector<Diagnostic>& diagnostics) {
  return Preprocessor(tokens, option_defines, diagnostics).run();
}

}  // namespace croq::frontend
