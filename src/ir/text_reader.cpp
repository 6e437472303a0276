// Reading one line of the IR's text form (see text_reader.hpp).
#include "ir/text_reader.hpp"

#include <cctype>
#include <charconv>

#include "croq/error.hpp"

namespace croq::ir::text {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

std::shared_ptr<Expr> node(ExprKind kind, std::vector<ExprRef> operands = {}) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->operands = std::move(operands);
  return e;
}

bool is_special(const std::string& name) {
  return name == "threadIdx" || name == "blockIdx" || name == "blockDim" || name == "gridDim";
}

}  // namespace

// ---------------------------------------------------------------- characters

bool LineReader::eat(std::string_view lit) {
  if (!looking_at(lit)) return false;
  p_ += lit.size();
  return true;
}

void LineReader::expect(std::string_view lit) {
  if (!eat(lit)) fail("expected `" + std::string(lit) + "`");
}

void LineReader::fail(const std::string& what) const {
  std::string found = at_end() ? "the end of the line" : "`" + std::string(s_.substr(p_, 24)) + "`";
  throw Error("IR text, line " + std::to_string(line_) + ", column " + std::to_string(offset_ + static_cast<int>(p_) + 1) +
              ": " + what + ", found " + found);
}

std::string LineReader::identifier() {
  if (!is_letter(peek())) fail("expected a name");
  const std::size_t begin = p_;
  while (is_letter(peek()) || is_digit(peek())) ++p_;
  return std::string(s_.substr(begin, p_ - begin));
}

std::int64_t LineReader::integer() {
  const std::size_t begin = p_;
  if (peek() == '-') ++p_;
  while (is_digit(peek())) ++p_;
  std::int64_t value = 0;
  const auto r = std::from_chars(s_.data() + begin, s_.data() + p_, value);
  if (r.ec != std::errc() || r.ptr != s_.data() + p_) {
    p_ = begin;
    fail("expected a 64-bit integer");
  }
  return value;
}

std::string LineReader::quoted() {
  expect("\"");
  std::string out;
  while (!at_end() && peek() != '"') {
    char c = s_[p_++];
    if (c != '\\') {
      out += c;
      continue;
    }
    const char e = peek();
    ++p_;
    if (e == 'n') out += '\n';
    else if (e == 't') out += '\t';
    else if (e == 'r') out += '\r';
    else if (e == '"' || e == '\\') out += e;
    else if (e == 'x' && std::isxdigit(static_cast<unsigned char>(peek())) &&
             std::isxdigit(static_cast<unsigned char>(peek(1)))) {
      out += static_cast<char>(std::stoi(std::string(s_.substr(p_, 2)), nullptr, 16));
      p_ += 2;
    } else {
      --p_;
      fail("unknown escape in a string");
    }
  }
  expect("\"");
  return out;
}

std::string LineReader::word() {
  const std::size_t begin = p_;
  while (!at_end() && peek() != ' ') ++p_;
  if (p_ == begin) fail("expected a word");
  return std::string(s_.substr(begin, p_ - begin));
}

void LineReader::end() {
  if (!at_end()) fail("expected the end of the line");
}

// ---------------------------------------------------------------- values

Type LineReader::type() {
  const std::size_t begin = p_;
  while (is_letter(peek()) || is_digit(peek()) || peek() == '.') ++p_;
  if (auto t = parse_type(s_.substr(begin, p_ - begin))) return *t;
  p_ = begin;
  fail("expected a type");
}

SourcePos LineReader::position() {
  SourcePos pos;
  pos.line = static_cast<int>(integer());
  expect(":");
  pos.column = static_cast<int>(integer());
  if (eat("+")) pos.length = static_cast<int>(integer());
  return pos;
}

std::vector<std::int64_t> LineReader::int_list() {
  expect("[");
  std::vector<std::int64_t> out;
  while (peek() != ']') {
    if (!out.empty()) expect(", ");
    out.push_back(integer());
  }
  expect("]");
  return out;
}

int LineReader::buffer_named(const std::string& name, int rank) const {
  int first = -1;
  for (std::size_t i = 0; i < k_.buffers.size(); ++i) {
    if (k_.buffers[i].name != name) continue;
    if (rank < 0 || static_cast<int>(k_.buffers[i].dims.size()) == rank) return static_cast<int>(i);
    if (first < 0) first = static_cast<int>(i);
  }
  return first;
}

int LineReader::buffer(int rank) {
  const std::size_t begin = p_;
  const std::string name = identifier();
  if (eat("#")) {
    const std::int64_t id = integer();
    if (id < 0 || id >= static_cast<std::int64_t>(k_.buffers.size()) || k_.buffers[static_cast<std::size_t>(id)].name != name) {
      p_ = begin;
      fail("no buffer `" + name + "#" + std::to_string(id) + "`");
    }
    return static_cast<int>(id);
  }
  const int id = buffer_named(name, rank);
  if (id < 0) {
    p_ = begin;
    fail("no buffer `" + name + "`");
  }
  return id;
}

int LineReader::event() {
  const std::size_t begin = p_;
  const std::string name = identifier();
  for (std::size_t i = 0; i < k_.events.size(); ++i)
    if (k_.events[i].name == name) return static_cast<int>(i);
  p_ = begin;
  fail("no event `" + name + "`");
}

int LineReader::accumulator() {
  const std::size_t begin = p_;
  const std::string name = identifier();
  for (std::size_t i = 0; i < k_.accumulators.size(); ++i)
    if (k_.accumulators[i].name == name) return static_cast<int>(i);
  p_ = begin;
  fail("no accumulator `" + name + "`");
}

int LineReader::param() {
  const std::size_t begin = p_;
  const std::string name = identifier();
  for (std::size_t i = 0; i < k_.params.size(); ++i)
    if (k_.params[i].name == name) return static_cast<int>(i);
  p_ = begin;
  fail("no parameter `" + name + "`");
}

// ---------------------------------------------------------------- expressions

ExprRef LineReader::expr() {
  std::shared_ptr<Expr> e = std::const_pointer_cast<Expr>(primary());
  if (e) typed(e);
  return e;
}

std::vector<ExprRef> LineReader::expr_list(char close) {
  std::vector<ExprRef> out;
  if (peek() == close) return out;
  out.push_back(expr());
  while (eat(", ")) out.push_back(expr());
  return out;
}

ExprRef LineReader::typed(ExprRef e) {
  auto m = std::const_pointer_cast<Expr>(e);
  if (peek() == ':' && is_letter(peek(1))) {
    ++p_;
    m->type = type();
  } else {
    m->type = natural_type(*m, k_, vars_);
  }
  return e;
}

ExprRef LineReader::primary() {
  const char c = peek();
  if (c == '(') return parenthesized();
  if (c == '&') {
    ++p_;
    ExprRef operand = expr();
    if (!operand) fail("expected an element after `&`");
    return node(ExprKind::address_of, {operand});
  }
  if (c == '-' && !is_digit(peek(1))) {  // no expression
    ++p_;
    return nullptr;
  }
  if (is_digit(c) || c == '-' || (c == '.' && is_digit(peek(1)))) {
    const std::size_t begin = p_;
    if (peek() == '-') ++p_;
    while (is_digit(peek())) ++p_;
    const bool floating = peek() == '.' || peek() == 'e' || peek() == 'E' || peek() == 'f' || peek() == 'F';
    if (!floating) {
      p_ = begin;
      auto e = node(ExprKind::int_const);
      e->value = integer();
      return e;
    }
    if (s_[begin] == '-') fail("a floating literal has no sign");
    while (is_digit(peek()) || peek() == '.') ++p_;
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      while (is_digit(peek())) ++p_;
    }
    if (peek() == 'f' || peek() == 'F') ++p_;
    auto e = node(ExprKind::float_literal);
    e->text = std::string(s_.substr(begin, p_ - begin));
    return e;
  }
  if (is_letter(c)) return named();
  fail("expected an expression");
}

ExprRef LineReader::parenthesized() {
  expect("(");
  const std::size_t start = p_;
  const char c = peek();
  if (c == '-' || c == '!' || c == '~' || c == '+') {
    // A unary operator, unless `-` starts the negative number on the left
    // of a binary operator: (-5 + x).
    ++p_;
    ExprRef operand = expr();
    if (operand && peek() == ')') {
      ++p_;
      auto e = node(ExprKind::unary, {operand});
      e->op = std::string(1, c);
      return e;
    }
    p_ = start;
  }
  ExprRef lhs = expr();
  expect(" ");
  if (eat("? ")) {
    ExprRef then_value = expr();
    expect(" : ");
    ExprRef else_value = expr();
    expect(")");
    return node(ExprKind::select, {lhs, then_value, else_value});
  }
  const std::string op = word();
  expect(" ");
  ExprRef rhs = expr();
  expect(")");
  auto e = node(ExprKind::binary, {lhs, rhs});
  e->op = op;
  return e;
}

ExprRef LineReader::named() {
  const std::size_t begin = p_;
  const std::string name = identifier();
  if (is_special(name) && eat(".x")) {
    auto e = node(ExprKind::special);
    e->text = name + ".x";
    return e;
  }
  if (name == "device_call" && eat("<")) {  // device_call<T|void> f<template args>(args)
    auto e = node(ExprKind::device_call);
    if (eat("void")) e->op = "void";
    else e->type = type();
    expect("> ");
    e->text = identifier();
    while (eat("::")) e->text += "::" + identifier();  // a namespace's function (an intrinsic)
    expect("<");
    e->operands = expr_list('>');
    e->value = static_cast<std::int64_t>(e->operands.size());
    expect(">(");
    for (ExprRef& a : expr_list(')')) e->operands.push_back(std::move(a));
    expect(")");
    return e;
  }
  if (eat("<")) {  // convert<T>(e), atomic_op<T>(...), math<T>(...)
    const Type t = type();
    expect(">(");
    auto e = node(name == "convert" ? ExprKind::convert : name.rfind("atomic_", 0) == 0 ? ExprKind::atomic : ExprKind::math,
                  expr_list(')'));
    expect(")");
    if (e->kind == ExprKind::convert && e->operands.size() != 1) fail("convert takes one operand");
    if (e->kind == ExprKind::atomic) e->op = name.substr(7);
    if (e->kind == ExprKind::math) e->op = name;
    e->type = t;
    return e;
  }
  if (name == "index_width" && eat("(")) {
    auto e = node(ExprKind::by_index_width, expr_list(')'));
    expect(")");
    if (e->operands.size() != 2) fail("index_width takes two operands");
    return e;
  }
  DType dtype{};
  if (peek() == '(' && (name == "zero_like" || name == "float" || parse_dtype(name, dtype))) {
    ++p_;
    if (name == "zero_like") {
      auto e = node(ExprKind::zero_like, {expr()});
      expect(")");
      return e;
    }
    const std::size_t text_begin = p_;
    while (!at_end() && peek() != ')') ++p_;
    auto e = node(name == "float" ? ExprKind::float_literal : ExprKind::typed_zero);
    e->text = std::string(s_.substr(text_begin, p_ - text_begin));
    e->type = name == "float" ? Type::f32() : Type::element(dtype);
    expect(")");
    return e;
  }
  if (name == "inf") {
    auto e = node(ExprKind::float_literal);
    e->text = name;
    return e;
  }
  if ((peek() == '[' || peek() == '{' || peek() == '#') && buffer_named(name, -1) >= 0) {
    p_ = begin;
    return element(buffer(-1));
  }
  auto e = node(ExprKind::var);
  e->text = name;
  auto declared = vars_.find(name);
  e->index_var = declared != vars_.end() && declared->second.kind == Type::Kind::index;
  return e;
}

ExprRef LineReader::element(int buffer) {
  ExprRef slot;
  if (eat("{")) {
    slot = expr();
    expect("}");
  }
  expect("[");
  std::vector<ExprRef> operands{slot};
  for (ExprRef& c : expr_list(']')) operands.push_back(std::move(c));
  expect("]");
  // Of buffers sharing a name (views), the one of this rank.
  const Buffer& b = k_.buffers[static_cast<std::size_t>(buffer)];
  if (b.dims.size() + 1 != operands.size())
    if (int other = buffer_named(b.name, static_cast<int>(operands.size()) - 1); other >= 0) buffer = other;
  auto e = node(ExprKind::element, std::move(operands));
  e->buffer = buffer;
  return e;
}

// ---------------------------------------------------------------- attributes

void LineReader::attributes() {
  if (!(peek() == ' ' && peek(1) == '{')) return;
  p_ += 2;
  while (true) {
    const std::string key = identifier();
    if (values_.count(key) || flags_.count(key)) fail("attribute `" + key + "` given twice");
    if (eat("=")) {
      const std::size_t begin = p_;
      int depth = 0;
      for (; !at_end(); ++p_) {
        const char c = peek();
        if (c == '"') {
          quoted();
          --p_;
        } else if (c == '(' || c == '[' || c == '{') {
          ++depth;
        } else if (depth > 0 && (c == ')' || c == ']' || c == '}')) {
          --depth;
        } else if (depth == 0 && (c == ',' || c == '}')) {
          break;
        }
      }
      if (p_ == begin) fail("attribute `" + key + "` has no value");
      values_[key] = {begin, p_};
    } else {
      flags_.insert(key);
    }
    if (eat(", ")) continue;
    expect("}");
    return;
  }
}

template <typename Read>
auto LineReader::with_value(const std::string& key, Read read) -> std::optional<decltype(read())> {
  auto it = values_.find(key);
  if (it == values_.end()) {
    if (flags_.count(key)) fail("attribute `" + key + "` needs a value");
    return std::nullopt;
  }
  const auto [begin, end] = it->second;
  values_.erase(it);
  const std::size_t saved = p_;
  p_ = begin;
  auto value = read();
  if (p_ != end) fail("unexpected text in attribute `" + key + "`");
  p_ = saved;
  return value;
}

bool LineReader::take_flag(const std::string& key) {
  if (values_.count(key)) fail("attribute `" + key + "` takes no value");
  return flags_.erase(key) > 0;
}

std::optional<std::int64_t> LineReader::take_int(const std::string& key) {
  return with_value(key, [&] { return integer(); });
}

ExprRef LineReader::take_expr(const std::string& key) {
  return with_value(key, [&] { return expr(); }).value_or(nullptr);
}

std::vector<std::int64_t> LineReader::take_list(const std::string& key) {
  return with_value(key, [&] { return int_list(); }).value_or(std::vector<std::int64_t>{});
}

SourcePos LineReader::take_position(const std::string& key) {
  return with_value(key, [&] { return position(); }).value_or(SourcePos{});
}

std::optional<std::string> LineReader::take_string(const std::string& key) {
  return with_value(key, [&] { return quoted(); });
}

std::optional<std::string> LineReader::take_word(const std::string& key) {
  return with_value(key, [&] { return identifier(); });
}

std::optional<Type> LineReader::take_type(const std::string& key) {
  return with_value(key, [&] { return type(); });
}

int LineReader::take_buffer(const std::string& key) {
  return with_value(key, [&] { return buffer(-1); }).value_or(-1);
}

std::vector<std::string> LineReader::take_names(const std::string& key) {
  return with_value(key, [&] {
           expect("[");
           std::vector<std::string> names;
           while (peek() != ']') {
             if (!names.empty()) expect(", ");
             const std::size_t begin = p_;
             identifier();
             if (eat("#")) integer();
             names.emplace_back(s_.substr(begin, p_ - begin));
           }
           expect("]");
           return names;
         })
      .value_or(std::vector<std::string>{});
}

void LineReader::finish_attributes() {
  if (!values_.empty()) fail("unknown attribute `" + values_.begin()->first + "`");
  if (!flags_.empty()) fail("unknown attribute `" + *flags_.begin() + "`");
}

}  // namespace croq::ir::text
