// The IR text parser's statement readers (parser.cpp: the header, lists
// and control flow; parser_ops.cpp: the tile-level operations). Internal.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"
#include "ir/text_reader.hpp"

namespace croq::ir::text {

struct Line {
  int number = 0;  // 1-based
  int depth = 0;   // indentation / 2
  std::string_view text;
};

// The first word of a statement's line: up to a space, or a `:` that ends it.
std::string_view first_word(std::string_view text);

class Parser {
 public:
  explicit Parser(std::string_view text);

  std::vector<Kernel> kernels() {
    std::vector<Kernel> out;
    while (next_ < lines_.size()) out.push_back(kernel());
    return out;
  }

 private:
  using StatementReader = StmtPtr (Parser::*)(LineReader&, int depth);

  LineReader reader(const Line& l) { return LineReader(l.text, l.number, l.depth * 2, k_, vars_); }
  [[noreturn]] void fail(const Line& l, const std::string& what) {
    throw Error("IR text, line " + std::to_string(l.number) + ": " + what);
  }
  bool more_at(int depth) const { return next_ < lines_.size() && lines_[next_].depth == depth; }

  Kernel kernel();
  void header(LineReader& r);
  void param(LineReader& r, Param& p);
  void buffer(LineReader& r, std::vector<std::string>& views);
  void event(LineReader& r);
  void accumulator(LineReader& r);

  StmtPtr body(int depth);
  StmtList list(int depth);
  StmtPtr statement(int depth);
  // The statement's position and the end of its line.
  StmtPtr finish(LineReader& r, StmtPtr s) {
    s->where = r.take_position("pos");
    r.finish_attributes();
    r.end();
    return s;
  }
  template <typename Node>
  StmtPtr finish(LineReader& r, Node n) {
    return finish(r, make_stmt(std::move(n)));
  }

  // The attribute block, the statement's position and the end of its line.
  template <typename Node>
  StmtPtr finish_line(LineReader& r, Node n) {
    r.attributes();
    return finish(r, make_stmt(std::move(n)));
  }
  // A statement with a nested body (`Node::body`): its line, then the body
  // at depth + 1.
  template <typename Node>
  StmtPtr with_body(LineReader& r, Node n, int depth) {
    StmtPtr s = finish(r, std::move(n));
    std::get<Node>(s->node).body = body(depth + 1);
    return s;
  }

  ThreadSet thread_set(LineReader& r);
  void set_attributes(LineReader& r, ThreadSet& set);
  Tile tile(LineReader& r);
  void operand_attributes(LineReader& r, MmaOperand& op, const std::string& side);

  StmtPtr seq(LineReader& r, int depth);
  StmtPtr braced_seq(LineReader& r, int depth);
  StmtPtr let(LineReader& r, int depth);
  StmtPtr assign(LineReader& r, ExprRef guard);
  StmtPtr eval(LineReader& r, int depth);
  StmtPtr for_loop(LineReader& r, int depth);
  StmtPtr if_stmt(LineReader& r, int depth);
  StmtPtr while_loop(LineReader& r, int depth);
  StmtPtr jump(LineReader& r, int depth);
  StmtPtr line_mark(LineReader& r, int depth);
  StmtPtr comment(LineReader& r, int depth);
  StmtPtr trap(LineReader& r, int depth);
  StmtPtr region(LineReader& r, int depth);
  StmtPtr barrier(LineReader& r, int depth);
  StmtPtr inline_asm(LineReader& r, int depth);
  StmtPtr print(LineReader& r, int depth);
  StmtPtr fence(LineReader& r, int depth);
  StmtPtr copy(LineReader& r, int depth);
  StmtPtr declare_buffer(LineReader& r, int depth);
  StmtPtr declare_event(LineReader& r, int depth);
  StmtPtr prologue(LineReader& r, int depth);
  StmtPtr arrive(LineReader& r, int depth);
  StmtPtr wait(LineReader& r, int depth);
  StmtPtr wait_counter(LineReader& r, int depth);
  StmtPtr tma_load(LineReader& r, int depth);
  StmtPtr tma_store(LineReader& r, int depth);
  StmtPtr mma_fill(LineReader& r, int depth);
  StmtPtr mma(LineReader& r, int depth);
  StmtPtr mma_wait(LineReader& r, int depth);
  StmtPtr mma_store(LineReader& r, int depth);
  StmtPtr mma_load(LineReader& r, int depth);
  StmtPtr mma_complete(LineReader& r, int depth);
  StmtPtr mma_scale(LineReader& r, int depth);
  StmtPtr set_max_nreg(LineReader& r, int depth);
  StmtPtr warpgroups(LineReader& r, int depth);

  static const std::map<std::string_view, StatementReader>& statement_readers();

  std::vector<Line> lines_;
  std::size_t next_ = 0;
  Kernel k_;
  text::VarTypes vars_;
};

}  // namespace croq::ir::text
