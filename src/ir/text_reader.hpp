// Reading one line of the IR's text form (parser.cpp): a cursor over its
// characters, the expressions and the `{key=value}` attribute block the
// printer writes. Internal to the parser.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.hpp"
#include "ir/text.hpp"

namespace croq::ir::text {

// What LineReader::read reads into an int or a list: the reader to use.
struct EventField { int& to; };
struct AccumulatorField { int& to; };
struct ParamField { int& to; };
struct BufferField { int& to; };  // any rank
template <typename T>
struct IntegerField { T& to; };
template <typename T>
IntegerField(T&) -> IntegerField<T>;
struct ExprListField { std::vector<ExprRef>& to; char close; };  // up to `close` (not consumed)

class LineReader {
 public:
  // `kernel` resolves buffer names and types element references; `vars`
  // types variable references (the parser adds declarations to it).
  LineReader(std::string_view line, int line_number, int column_offset, const Kernel& kernel, const VarTypes& vars)
      : s_(line), line_(line_number), offset_(column_offset), k_(kernel), vars_(vars) {}

  // ---- characters

  bool at_end() const { return p_ >= s_.size(); }
  char peek(std::size_t ahead = 0) const { return p_ + ahead < s_.size() ? s_[p_ + ahead] : '\0'; }
  bool looking_at(std::string_view lit) const { return s_.substr(p_, lit.size()) == lit; }
  bool eat(std::string_view lit);
  void expect(std::string_view lit);
  std::string identifier();
  std::int64_t integer();
  std::string quoted();
  // Characters up to the next space or the end.
  std::string word();
  std::string_view rest() const { return s_.substr(p_); }
  void end();  // nothing may follow
  [[noreturn]] void fail(const std::string& what) const;

  // ---- values

  ExprRef expr();
  std::vector<ExprRef> expr_list(char close);  // a, b, c up to `close` (not consumed)
  std::vector<std::int64_t> int_list();        // [1, 2, 3]
  Type type();
  SourcePos position();
  // A buffer by name (`name#index` picks one of several of that name);
  // `rank` >= 0 prefers the one of that rank.
  int buffer(int rank = -1);
  int buffer_named(const std::string& name, int rank) const;
  int event();
  int accumulator();
  int param();

  // ---- fixed sequences, as the printer writes most statements: literals
  // and values in turn, e.g.
  //   r.read("arrive ", EventField{n.event}, "[", n.index, "] by ");
  // expects each literal and reads each value: ExprRef (expr), std::string
  // (identifier), Type (type), and the fields above the class.
  template <typename... Parts>
  void read(Parts&&... parts) {
    (read_part(std::forward<Parts>(parts)), ...);
  }

  // ---- the attribute block: ` {key=value, flag}` where the cursor is

  // Reads the block if one starts here (after an optional space).
  void attributes();
  bool take_flag(const std::string& key);
  std::optional<std::int64_t> take_int(const std::string& key);
  std::int64_t take_int(const std::string& key, std::int64_t fallback) { return take_int(key).value_or(fallback); }
  ExprRef take_expr(const std::string& key);
  std::vector<std::int64_t> take_list(const std::string& key);
  SourcePos take_position(const std::string& key);
  std::optional<std::string> take_string(const std::string& key);
  std::optional<std::string> take_word(const std::string& key);
  std::optional<Type> take_type(const std::string& key);
  int take_buffer(const std::string& key);  // -1 when absent
  std::vector<std::string> take_names(const std::string& key);  // [a, b]
  // Every attribute of the block was taken (else an error names the first).
  void finish_attributes();

 private:
  void read_part(std::string_view literal) { expect(literal); }
  void read_part(ExprRef& to) { to = expr(); }
  void read_part(std::string& to) { to = identifier(); }
  void read_part(Type& to) { to = type(); }
  void read_part(EventField f) { f.to = event(); }
  void read_part(AccumulatorField f) { f.to = accumulator(); }
  void read_part(ParamField f) { f.to = param(); }
  void read_part(BufferField f) { f.to = buffer(-1); }
  template <typename T>
  void read_part(IntegerField<T> f) {
    f.to = static_cast<T>(integer());
  }
  void read_part(ExprListField f) { f.to = expr_list(f.close); }

  ExprRef primary();
  ExprRef parenthesized();
  ExprRef named();
  ExprRef element(int buffer);
  ExprRef typed(ExprRef e);  // the natural type, or the `:type` that follows
  // Runs `read` on the value of `key` and checks it reads all of it.
  template <typename Read>
  auto with_value(const std::string& key, Read read) -> std::optional<decltype(read())>;

  std::string_view s_;
  std::size_t p_ = 0;
  int line_;
  int offset_;
  const Kernel& k_;
  const VarTypes& vars_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> values_;  // key -> [begin, end) of its value
  std::set<std::string> flags_;
};

}  // namespace croq::ir::text
