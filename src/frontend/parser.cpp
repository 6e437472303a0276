// Parser, part 1: token helpers, error recovery, the top level (which skips
// host C++), __co__ function signatures, types and declarations.
#include "frontend/parser.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "frontend/frontend.hpp"
#include "frontend/limits.hpp"

namespace croq::frontend {

using namespace ast;

TokenCursor::TokenCursor(std::vector<Token> tokens, std::string_view source, std::vector<Diagnostic>& diagnostics)
    : tokens_(std::move(tokens)), source_(source), diagnostics_(diagnostics) {}

Parser::Parser(std::vector<Token> tokens, std::string_view source, std::vector<Diagnostic>& diagnostics)
    : StatementParser(std::move(tokens), source, diagnostics) {}

void Parser::parse(Program& program) {
  try {
    parse_top_level(program);
    program.intrinsic_pragmas = std::move(intrinsic_pragmas_);
  } catch (const TooManyErrors&) {
    Diagnostic d;
    d.severity = Severity::note;
    d.message = "too many errors; stopping after " + std::to_string(kMaxErrors);
    diagnostics_.push_back(d);
  }
}

// ------------------------------------------------------------------ tokens

const Token& TokenCursor::peek(size_t ahead) const {
  return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
}

const Token& TokenCursor::advance() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool TokenCursor::at(std::string_view text) const { return peek().is(text); }
bool TokenCursor::at_punct(std::string_view text) const {
  return peek().kind == TokenKind::punct && peek().is(text);
}
bool TokenCursor::at_word(std::string_view text) const {
  return peek().kind == TokenKind::identifier && peek().is(text);
}
bool TokenCursor::at_eof() const { return peek().kind == TokenKind::end_of_file; }
bool TokenCursor::at_function_start() const {
  return at_word("__co__") || at_word("__co_device__") || at_word("__device__") || at_word("__global__");
}

bool TokenCursor::accept(std::string_view text) {
  if (!at(text)) return false;
  advance();
  return true;
}

const Token& TokenCursor::expect(std::string_view text, std::string_view context, std::string hint) {
  if (at(text)) return advance();
  fail(peek(), "expected `" + std::string(text) + "` " + std::string(context) + ", found " + describe(peek()),
       std::move(hint));
}

const Token& TokenCursor::expect_identifier(std::string_view what) {
  if (peek().is_identifier()) return advance();
  fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
}

// Splits a punctuator that starts with `c` so that its first character can
// be consumed alone (`>>` closing two template lists, `::` in ranges).
static bool split_first(Token& t, char c) {
  if (t.kind != TokenKind::punct || t.text.empty() || t.text[0] != c) return false;
  if (t.text.size() == 1) return true;
  t.text.remove_prefix(1);
  t.column += 1;
  t.offset += 1;
  t.space_before = false;
  return false;
}

bool TokenCursor::accept_closing_angle() {
  Token& t = tokens_[pos_];
  if (t.kind != TokenKind::punct || t.text.empty() || t.text[0] != '>') return false;
  if (!split_first(t, '>')) return true;  // consumed the first `>` of `>>`, `>=`, `>>=`
  advance();
  return true;
}

bool TokenCursor::accept_colon() {
  Token& t = tokens_[pos_];
  if (t.kind != TokenKind::punct || t.text.empty() || t.text[0] != ':') return false;
  if (!split_first(t, ':')) return true;
  advance();
  return true;
}

SourceLocation TokenCursor::location(const Token& t) const {
  return SourceLocation{t.line, t.column, t.offset, std::max(1, t.length())};
}

SourceLocation TokenCursor::location_from(const Token& first) const {
  SourceLocation loc = location(first);
  const Token& last = tokens_[pos_ > 0 ? pos_ - 1 : 0];
  if (last.line == first.line && last.offset >= first.offset)
    loc.length = std::max(1, last.offset + last.length() - first.offset);
  return loc;
}

std::string TokenCursor::written_text(const Expr& e) const {
  if (e.source_begin < 0 || e.source_end <= e.source_begin || static_cast<std::size_t>(e.source_end) > source_.size())
    return print_expression(e);
  return std::string(source_.substr(static_cast<std::size_t>(e.source_begin),
                                    static_cast<std::size_t>(e.source_end - e.source_begin)));
}

void TokenCursor::set_extent(Expr& e, int begin) const {
  if (pos_ == 0) return;
  const Token& last = tokens_[pos_ - 1];
  int end = last.offset + last.length();
  // A token expanded from a define stands where the define's name is written
  // (its text is the define's value, elsewhere).
  if (static_cast<std::size_t>(last.offset) > source_.size() || last.text.data() != source_.data() + last.offset) {
    std::size_t at = static_cast<std::size_t>(last.offset);
    while (at < source_.size() && (std::isalnum(static_cast<unsigned char>(source_[at])) || source_[at] == '_')) ++at;
    end = static_cast<int>(at);
  }
  if (begin < 0 || end <= begin || static_cast<std::size_t>(end) > source_.size()) return;
  e.source_begin = begin;
  e.source_end = end;
}

// ------------------------------------------------------------------ errors

void TokenCursor::report(const Token& at, std::string message, std::string hint) {
  if (error_count_ >= kMaxErrors) throw TooManyErrors{};
  ++error_count_;
  diagnostics_.push_back(error_at(at, std::move(message), std::move(hint)));
}

void TokenCursor::fail_at(const SourceLocation& at, std::string message, std::string hint) {
  Token where;
  where.line = at.line;
  where.column = at.column;
  report(where, std::move(message), std::move(hint));
  diagnostics_.back().length = std::max(1, at.length);
  throw SyntaxError{};
}

void TokenCursor::fail(const Token& at, std::string message, std::string hint) {
  if (at.kind == TokenKind::invalid) {
    // A stray byte explains itself better than "expected X".
    char first = at.text.empty() ? '?' : at.text[0];
    if (first == '"') report(at, "unterminated string literal", "close the string with `\"`");
    else if (first == '\'') report(at, "unterminated character literal");
    else report(at, "stray " + describe(at) + " in program");
    throw SyntaxError{};
  }
  report(at, std::move(message), std::move(hint));
  throw SyntaxError{};
}

// Skips to the end of the broken statement: past the next `;`, or past a
// `{...}` block, or up to (not past) a `}` that closes the enclosing block.
void TokenCursor::synchronize() {
  int depth = 0, parens = 0;
  while (!at_eof() && !at_function_start()) {
    if (at_punct(";") && depth == 0 && parens == 0) {
      advance();
      return;
    }
    if (at_punct("(")) {
      ++parens;
    } else if (at_punct(")")) {
      parens = std::max(0, parens - 1);
    } else if (at_punct("{")) {
      ++depth;
    } else if (at_punct("}")) {
      if (depth == 0) return;
      if (--depth == 0) {
        advance();
        return;
      }
    }
    advance();
  }
}

void TokenCursor::skip_balanced(bool in_cok_block) {
  const Token& open = advance();
  int depth = 1;
  // Host code never contains a __co__ function: one means a brace is missing.
  while (!at_eof() && !at_word("__co__") && (in_cok_block || !at_word("__co_device__"))) {
    if (at_punct("{")) ++depth;
    if (at_punct("}") && --depth == 0) {
      advance();
      return;
    }
    advance();
  }
  report(peek(), "expected `}`, found " + describe(peek()),
         "the `{` at line " + std::to_string(open.line) + ", column " + std::to_string(open.column) +
             " is never closed");
}

TokenCursor::NestingGuard::NestingGuard(TokenCursor& p, const Token& at) : parser(p) {
  if (++parser.nesting_ > kMaxNesting) {
    --parser.nesting_;
    parser.fail(at, "nesting is too deep (more than " + std::to_string(kMaxNesting) + " levels)");
  }
}

void TokenCursor::count_operand(const Token& at) {
  if (++operands_ > kMaxOperands)
    fail(at, "statement is too long (more than " + std::to_string(kMaxOperands) + " operands)");
}

std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string best;
  size_t best_distance = 3;
  for (std::string_view c : candidates) {
    // Levenshtein distance with one rolling row; names are short.
    std::vector<size_t> row(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= c.size(); ++j) {
        size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (word[i - 1] == c[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    size_t allowed = c.size() <= 4 ? 1 : 2;  // short names: one edit, or every name is close
    if (row[c.size()] <= allowed && row[c.size()] < best_distance) {
      best_distance = row[c.size()];
      best = c;
    }
  }
  return best;
}

// --------------------------------------------------------------- top level

// program = { co_function | device_code | host_construct }
// Host C++ (includes are gone already; `int main() {...}`, other functions,
// globals, `using namespace`) is skipped token by token, braces balanced.
// `namespace x { ... }` is entered, so __co__ functions inside are found.
void Parser::parse_top_level(Program& program) {
  size_t declaration_start = pos_;
  int namespace_depth = 0;
  while (!at_eof()) {
    const Token& t = peek();
    if (t.follows_directive) declaration_start = pos_;
    size_t after_template = 0;
    if (at_word("__co__") || at_word("__co_device__") ||
        (at_word("template") && template_introduces_function(after_template))) {
      parse_function(program);
      declaration_start = pos_;
    } else if (at_word("template") && peek(1).is("__co__")) {
      // `template __co__ f<f16, 64>;` instantiates a template: nothing to parse.
      while (!at_eof() && !at_punct(";")) advance();
      accept(";");
      declaration_start = pos_;
    } else if (at_word("__device__") || at_word("__cok__")) {
      capture_device_code(program, at_word("__cok__") ? pos_ : declaration_start);
      declaration_start = pos_;
    } else if (at_word("namespace")) {
      while (!at_eof() && !at_punct("{") && !at_punct(";")) advance();
      if (accept("{")) ++namespace_depth;
      else accept(";");
      declaration_start = pos_;
    } else if (at_punct("{")) {
      skip_balanced();
      declaration_start = pos_;
    } else if (at_punct("}")) {
      if (namespace_depth > 0) --namespace_depth;
      else report(t, "unmatched `}` at file scope", "remove it, or add the `{` it should close");
      advance();
      declaration_start = pos_;
    } else if (at_punct(";")) {
      advance();
      declaration_start = pos_;
    } else if (peek().kind == TokenKind::pragma) {
      parse_pragma();
      declaration_start = pos_;
    } else {
      advance();
    }
  }
}

// Whether `template <...>` at the cursor is followed by __co__ / __co_device__.
// The look-ahead is bounded: host code is skipped one token at a time, so an
// unbounded scan from every `template` would make `template<template<...`
// quadratic; no template header of a __co__ function is that long.
bool Parser::template_introduces_function(size_t& after) const {
  if (!peek(1).is("<")) return false;
  int depth = 0;
  for (size_t i = 1; pos_ + i < tokens_.size() && i <= kMaxTemplateHeaderTokens; ++i) {
    const Token& t = peek(i);
    if (t.kind == TokenKind::end_of_file || t.is(";") || t.is("{")) return false;
    if (t.is("<")) ++depth;
    if (t.is(">")) --depth;
    if (t.is(">>")) depth -= 2;
    if (depth <= 0) {
      after = i + 1;
      return peek(after).is("__co__") || peek(after).is("__co_device__");
    }
  }
  return false;
}

// device_code = { host_token } "__device__" { host_token } ( "{" ... "}" | ";" )
//             | "__cok__" "{" ... "}"
// Kept verbatim from the first token of the declaration (so `template <...>`,
// `static`, `inline` stay) to its closing brace.
void Parser::capture_device_code(Program& program, size_t start_token) {
  const Token& start = tokens_[start_token];
  const bool cok = start.is("__cok__");
  DeviceCode code;
  code.location = location(start);
  int paren_depth = 0;
  // Names the generated code owns (croq_F, the preludes' croq_*): one here
  // would meet them in the same CUDA text.
  auto note_reserved = [&](const Token& t) {
    if (code.reserved_name.empty() && t.is_identifier() && t.text.rfind("croq_", 0) == 0) {
      code.reserved_name = std::string(t.text);
      code.reserved_at = location(t);
    }
  };
  while (!at_eof()) {
    if (at_punct("(")) {
      if (paren_depth == 0 && code.name.empty() && pos_ > 0 && tokens_[pos_ - 1].is_identifier())
        code.name = std::string(tokens_[pos_ - 1].text);
      ++paren_depth;
    } else if (at_punct(")")) {
      --paren_depth;
    } else if (paren_depth <= 0 && at_punct(";")) {
      advance();
      break;
    } else if (paren_depth <= 0 && at_punct("{")) {
      skip_balanced(cok);
      break;
    }
    advance();
  }
  for (size_t i = start_token; i < pos_; ++i) note_reserved(tokens_[i]);
  // A __cok__ block's braces are Croqtile's: CUDA gets what is inside them.
  size_t first = start_token, last_token = pos_ > 0 ? pos_ - 1 : 0;
  if (cok) {
    first = start_token + 2;
    last_token = pos_ >= 2 ? pos_ - 2 : 0;
    if (first < tokens_.size()) code.location = location(tokens_[first]);
  }
  const Token& last = tokens_[last_token];
  size_t end = static_cast<size_t>(last.offset + last.length());
  if (first <= last_token && end > static_cast<size_t>(tokens_[first].offset) && end <= source_.size())
    code.text = std::string(source_.substr(tokens_[first].offset, end - tokens_[first].offset));
  const std::size_t before = device_code_bytes_;
  device_code_bytes_ += code.text.size();
  if (before <= limits::kMaxDeviceCodeBytes && device_code_bytes_ > limits::kMaxDeviceCodeBytes)
    report(start,
           "__device__ code reaches " + limits::group_digits(device_code_bytes_) + " bytes here, more than " +
               limits::group_digits(limits::kMaxDeviceCodeBytes) + " (32 KiB), the limit",
           "NVRTC compiles it into every kernel of the source, and its time grows faster than the text: keep device "
           "helpers small");
  collect_device_functions(code, start_token, cok ? 1 : 0);
  program.device_code.push_back(std::move(code));
}

// The functions defined in tokens [start_token, pos_) at brace depth
// `depth` (0 for a __device__ declaration, 1 inside a __cok__ block):
// `... NAME ( ... ) {` where the declaration says `__device__` (CUDA
// compiles the others for the host). Declarations without a body are left
// out: what `call` names must be defined by the source itself.
void Parser::collect_device_functions(DeviceCode& code, size_t start_token, int depth) {
  int braces = 0, parens = 0;
  bool device = false;
  size_t name = 0;  // the candidate's token, 0: none
  for (size_t i = start_token; i < pos_; ++i) {
    const Token& t = tokens_[i];
    if (t.is("{")) {
      if (braces == depth && parens == 0 && name && device) {
        const Token& before = tokens_[name - 1];
        code.functions.push_back({std::string(tokens_[name].text),
                                  before.is_identifier() ? std::string(before.text) : std::string(),
                                  location(tokens_[name])});
      }
      if (braces == depth && parens == 0) name = 0, device = false;
      ++braces;
    } else if (t.is("}")) {
      --braces;
    } else if (braces != depth) {
      continue;
    } else if (t.is("(")) {
      if (parens++ == 0 && !name && i > start_token && tokens_[i - 1].is_identifier()) name = i - 1;
    } else if (t.is(")")) {
      --parens;
    } else if (parens == 0 && t.is(";")) {
      name = 0, device = false;
    } else if (t.is("__device__")) {
      device = true;
    }
  }
}

// co_function = [ template_header ] ( "__co__" | "__co_device__" ) type IDENT
//               [ template_arguments ] "(" [ parameter { "," parameter } ] ")"
//               ( block | ";" )
void Parser::parse_function(Program& program) {
  Function function;
  type_params_.clear();
  operands_ = 0;
  try {
    if (at_word("template")) parse_template_header(function);
    function.is_co_device = advance().text == "__co_device__";
    if (peek().is_identifier() && peek(1).is("(") && !at_type_name()) {
      fail(peek(), "expected the return type of `" + std::string(peek().text) + "`, found `(`",
           "write `void` when the function returns nothing");
    }
    function.return_type = parse_type();
    const Token& name = expect_identifier("the function name");
    function.name = std::string(name.text);
    function.location = location(name);
    if (at_punct("<")) function.specialization_args = parse_template_arguments("the specialization");
    parse_parameters(function);
    if (accept(";")) return;  // a declaration; the definition comes later
    if (!at_punct("{"))
      fail(peek(), "expected `{` to begin the body of `" + function.name + "`, found " + describe(peek()));
  } catch (const SyntaxError&) {
    // A broken signature: skip to the body and past it.
    while (!at_eof() && !at_punct("{") && !at_punct(";")) advance();
    if (at_punct("{")) skip_balanced();
    else accept(";");
    return;
  }
  const size_t file_intrinsics = intrinsics_in_scope_.size();
  try {
    function.body = parse_block();
  } catch (const FunctionAbandoned&) {
    intrinsics_in_scope_.resize(file_intrinsics);
    return;  // parse_block reported the unclosed brace
  }
  program.functions.push_back(std::move(function));
}

// template_header = "template" "<" [ template_param { "," template_param } ] ">"
// template_param  = ( "typename" | "class" | type ) IDENT
void Parser::parse_template_header(Function& function) {
  advance();
  expect("<", "after `template`");
  function.is_template = true;
  while (!accept_closing_angle()) {
    TemplateParam param;
    const Token& kind = expect_identifier("a template parameter kind (`typename`, `int`, `bool`)");
    param.kind = std::string(kind.text);
    const Token& name = expect_identifier("a template parameter name");
    param.name = std::string(name.text);
    param.location = location(name);
    if (param.kind == "typename" || param.kind == "class") type_params_.push_back(param.name);
    function.template_params.push_back(std::move(param));
    if (!accept(",") && !at(">"))
      fail(peek(), "expected `,` or `>` in the template parameter list, found " + describe(peek()));
  }
}

// parameters = "(" [ parameter { "," parameter } ] ")"
void Parser::parse_parameters(Function& function) {
  expect("(", "after the function name `" + function.name + "`");
  if (accept(")")) return;
  while (true) {
    function.params.push_back(parse_parameter());
    if (accept(")")) return;
    const Parameter& last = function.params.back();
    expect(",", "or `)` after the parameter `" + (last.name.empty() ? last.type.name : last.name) + "`");
  }
}

// parameter = type [ "&" ] [ IDENT ]
// A parameter without a name (`int` in `f(f16 [M] x, int)`) is part of the
// signature only; `&` passes a tensor by reference (the host sees its writes).
Parameter Parser::parse_parameter() {
  Parameter p;
  const Token& first = peek();
  p.type = parse_type();
  if (at_punct("&")) {
    advance();
    p.by_reference = true;
  }
  if (at_punct(",") || at_punct(")")) {
    p.location = location_from(first);
    return p;
  }
  const Token& name = expect_identifier("a parameter name");
  p.name = std::string(name.text);
  p.location = location(name);
  if (at_punct("["))  // `f32 d[]`: C's array parameter, not Croqtile's
    fail(peek(), "a parameter's shape comes before its name, not after `" + p.name + "`",
         "write `" + p.type.name + " [N] " + p.name + "`; the call gives N");
  return p;
}

// ---------------------------------------------------- types and declarations

static Storage storage_of(const Token& t) {
  if (t.is("global")) return Storage::global;
  if (t.is("shared")) return Storage::shared;
  if (t.is("local")) return Storage::local;
  if (t.is("frag")) return Storage::frag;
  return Storage::none;
}

// Other spellings of element types: `half x` is `f16 x`.
static std::string_view canonical_type_name(std::string_view name) {
  if (name == "half") return "f16";
  if (name == "bfp16") return "bf16";
  if (name == "f8") return "f8_e4m3";
  return name;
}

static std::optional<TypeKind> builtin_type(std::string_view name) {
  if (is_element_type_name(canonical_type_name(name)) || name == "float" || name == "double")
    return TypeKind::element;
  if (name == "stream") return TypeKind::stream;
  if (name == "int") return TypeKind::int_;
  if (name == "bool") return TypeKind::bool_;
  if (name == "void") return TypeKind::void_;
  if (name == "auto") return TypeKind::auto_;
  if (name == "event") return TypeKind::event;
  if (name == "ituple") return TypeKind::ituple;
  if (name == "mdspan") return TypeKind::mdspan;
  return std::nullopt;
}

bool StatementParser::at_type_name(size_t ahead) const {
  const Token& t = peek(ahead);
  if (!t.is_identifier()) return false;
  return builtin_type(t.text) ||
         std::find(type_params_.begin(), type_params_.end(), t.text) != type_params_.end();
}

// Decides, before committing, whether a statement is a declaration.
bool StatementParser::at_declaration() const {
  const Token& t = peek();
  if (!t.is_identifier()) return false;
  // `frag` is also a fine name for a value; `frag mc[2] {0}` declares accumulators.
  if (t.is("frag"))
    return at_type_name(1) || (peek(1).is_identifier() && peek(2).is("[")) ||
           (peek(1).is(".") && peek(2).is_identifier() && peek(3).is_identifier() && peek(4).is("["));
  if (storage_of(t) != Storage::none || t.is("mutable")) return true;
  const Token& next = peek(1);
  if (at_type_name()) {
    bool builtin = std::find(type_params_.begin(), type_params_.end(), t.text) == type_params_.end();
    // `half = x;`: the other spellings of element types are also fine names.
    if (canonical_type_name(t.text) != t.text || t.is("stream")) return next.is_identifier() || next.is("[");
    if (builtin) return !next.is("(") && !next.is(".");  // `int = 5` is a broken declaration
    return next.is_identifier() || next.is("[") || next.is("<");
  }
  if (at_type_name(1)) return true;  // `shard f16 [..] x`: reported by parse_type
  if (next.is(":")) return true;  // sp : [7, 8];  tiles : sp / 4;
  if (next.is("[")) {  // T [M, N] name
    int depth = 0;
    for (size_t i = 1; pos_ + i < tokens_.size(); ++i) {
      const Token& u = peek(i);
      if (u.is("[")) ++depth;
      else if (u.is("]") && --depth == 0) return peek(i + 1).is_identifier();
      else if (u.is(";") || u.is("{") || u.is("}") || u.kind == TokenKind::end_of_file) return false;
    }
  }
  return false;
}

// type = [ "global" | "shared" | "local" | "frag" ] [ "mutable" ] type_name
//        [ "<" expr ">" ] [ "mdspan" ( "<" expr ">" | shape ) | shape ]
//      | "mutable"                  (before `IDENT =`: the type of the initializer)
void StatementParser::parse_shape(TypeRef& type) {
  // shape = "[" [ expr { "," expr } ] "]"
  const Token& open = advance();
  type.has_shape = true;
  if (accept("]")) return;
  while (true) {
    if (at_punct("?") && (peek(1).is(",") || peek(1).is("]"))) {
      // `?`: a dim the call gives, without a name.
      const Token& unknown = advance();
      type.shape.push_back(make_node<Expr>(location(unknown), Name{"?"}));
    } else if (at_punct("?") && peek(1).is("?") && (peek(2).is(",") || peek(2).is("]"))) {
      // `??`: an unbounded dim, known to no one before the kernel runs.
      const Token& unbounded = advance();
      advance();
      type.shape.push_back(make_node<Expr>(location(unbounded), Name{"??"}));
    } else {
      type.shape.push_back(parse_expression());
    }
    if (accept("]")) return;
    if (!at(","))
      fail(peek(), "expected `,` or `]` in the shape, found " + describe(peek()),
           "the `[` at line " + std::to_string(open.line) + ", column " + std::to_string(open.column) +
               " is not closed");
    advance();
  }
}

TypeRef StatementParser::parse_type() {
  TypeRef type;
  const Token& first = peek();
  type.location = location(first);
  type.storage = storage_of(first);
  if (type.storage != Storage::none) advance();
  if (accept("mutable")) {
    type.is_mutable = true;
    // `mutable a = 3;`: the initializer gives the type.
    const Token& next = peek(1);
    if (peek().is_identifier() && !at_type_name() && (next.is("=") || next.is(",") || next.is(";"))) {
      type.kind = TypeKind::auto_;
      type.name = "auto";
      return type;
    }
  }
  // `frag mc[2][3] {0.0};`, `frag.s32 mc[1][2] {0};`: an array of mma accumulators.
  if (type.storage == Storage::frag && at_punct(".") && peek(1).is_identifier() && peek(2).is_identifier()) {
    advance();
    advance();
  }
  if (type.storage == Storage::frag && !at_type_name() && peek().is_identifier() && peek(1).is("[")) {
    type.kind = TypeKind::auto_;
    type.name = "auto";
    return type;
  }
  const Token& name = peek();
  if (!name.is_identifier())
    fail(name, "expected a type, found " + describe(name));
  if (!at_type_name() && at_type_name(1)) {
    std::string hint;
    std::string guess = closest_name(name.text, {"global", "shared", "local"});
    fail(name, "unknown memory specifier " + describe(name) + "; expected `global`, `shared` or `local`",
         guess.empty() ? "" : "did you mean `" + guess + "`?");
  }
  advance();
  type.name = std::string(canonical_type_name(name.text));
  type.kind = builtin_type(name.text).value_or(TypeKind::named);
  if ((type.kind == TypeKind::ituple || type.kind == TypeKind::mdspan) && accept("<"))
    type.rank = parse_angle_value("after the rank of `" + type.name + "`");
  else if (type.kind == TypeKind::ituple && at_punct("["))
    fail(peek(), "expected `<` or a name after `ituple`, found `[`",
         "an `ituple` takes its rank in angle brackets: `ituple<2> t = {7, 8};`");
  else if (type.kind == TypeKind::mdspan && at_punct("["))
    fail(peek(), "expected `<` or a name after `mdspan`, found `[`",
         "an `mdspan` takes its rank in angle brackets and its extents after `:`: `mdspan<2> s : [7, 8];`");
  if (type.kind == TypeKind::event && accept("<"))
    type.arrivals = parse_angle_value("after the thread count of `event`");
  if (type.kind == TypeKind::element && at_word("mdspan")) {
    // f32 mdspan<2> (rank only), f32 mdspan[M, N] (= f32 [M, N])
    advance();
    if (accept("<")) {
      type.rank = parse_angle_value("after the rank of `mdspan`");
      type.has_shape = true;
      return type;
    }
    if (!at_punct("["))
      fail(peek(), "expected `<` or `[` after `" + type.name + " mdspan`, found " + describe(peek()),
           "write the rank, `" + type.name + " mdspan<2>`, or the shape, `" + type.name + " mdspan[M, N]`");
  }
  if (at_punct("[")) parse_shape(type);
  return type;
}

// angle_value = expr ">"   (after the `<` of `mdspan<2>`, `event<256>`)
ExprPtr StatementParser::parse_angle_value(const std::string& where) {
  bool saved = angle_closes_;
  angle_closes_ = true;
  ExprPtr value = parse_expression();
  angle_closes_ = saved;
  if (!accept_closing_angle()) fail(peek(), "expected `>` " + where + ", found " + describe(peek()));
  return value;
}

// declaration = ( type | IDENT ":" ) declarator { "," declarator } ";"
StmtPtr StatementParser::parse_declaration() {
  const Token& first = peek();
  auto stmt = std::make_unique<Stmt>();
  Declaration decl;
  if (peek(1).is(":") && !at_type_name() && storage_of(first) == Storage::none && !first.is("mutable")) {
    decl.type.kind = TypeKind::mdspan;  // `sp : [7, 8]` defines a shape
    decl.type.location = location(first);
    if (peek(2).is("[") && peek(3).is("]"))
      fail(peek(3), "expected a dimension in the shape of `" + std::string(first.text) + "`, found `]`",
           "a shape has at least one dimension: `" + std::string(first.text) + " : [8];`");
  } else {
    decl.type = parse_type();
  }
  while (true) {
    decl.declarators.push_back(parse_declarator());
    if (!accept(",")) break;
  }
  stmt->location = location_from(first);
  expect_semicolon("the declaration");
  stmt->node = std::move(decl);
  return stmt;
}

// declarator = IDENT { "[" expr "]" } [ "=" expr | "{" [ expr_list ] "}" | ":" expr ]
Declarator StatementParser::parse_declarator() {
  Declarator d;
  const Token& name = expect_identifier("a name to declare");
  d.name = std::string(name.text);
  d.location = location(name);
  if (accept("[")) {
    d.array_size = parse_expression();
    expect("]", "after the array size");
    while (accept("[")) {  // name[2][3]: an array of arrays
      d.more_array_dims.push_back(parse_expression());
      expect("]", "after the array size");
    }
  }
  if (accept("=")) {
    d.init = Declarator::Init::equals;
    d.init_values.push_back(parse_expression());
  } else if (at_punct("{")) {
    const Token& open = advance();
    d.init = Declarator::Init::braces;
    (void)open;
    if (!accept("}")) {
      while (true) {
        d.init_values.push_back(parse_expression());
        if (accept("}")) break;
        expect(",", "between initializer values");
      }
    }
  } else if (accept_colon()) {
    d.init = Declarator::Init::colon;
    d.init_values.push_back(parse_expression());
  }
  return d;
}

}  // namespace croq::frontend
