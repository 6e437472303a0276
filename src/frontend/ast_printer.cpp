// The AST printer: an S-expression per node, one statement per line with its
// line:column, expressions inline. Golden tests compare this text exactly.
#include <cstdio>
#include <sstream>

#include "frontend/frontend.hpp"
#include "frontend/lexer.hpp"

namespace croq::frontend {

using namespace ast;

namespace {

std::string at(const SourceLocation& loc) {
  return "@" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

class Printer {
 public:
  std::string program(const Program& p) {
    out_ << "(program";
    for (const auto& [name, d] : p.defines) {
      line(1) << "(define " << name << " \"" << d.text << "\"";
      if (d.value) {
        if (const auto* i = std::get_if<std::int64_t>(&*d.value)) out_ << " = " << *i;
        else out_ << " = " << format_double(std::get<double>(*d.value));
      }
      if (d.from_options) out_ << " (from options)";
      if (d.function_like) out_ << " (function-like)";
      out_ << ")";
    }
    for (const DeviceCode& code : p.device_code)
      line(1) << "(device_code " << (code.name.empty() ? "-" : code.name) << " " << at(code.location) << " "
              << code.text.size() << " bytes)";
    for (const Function& f : p.functions) function(f, 1);
    out_ << ")\n";
    return out_.str();
  }

  std::string expr_text(const Expr& e) {
    std::ostringstream saved;
    saved.swap(out_);
    expr(e);
    std::string s = out_.str();
    out_.swap(saved);
    return s;
  }

 private:
  static std::string format_double(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }

  std::ostream& line(int indent) {
    out_ << "\n" << std::string(static_cast<size_t>(indent) * 2, ' ');
    return out_;
  }

  void function(const Function& f, int indent) {
    line(indent) << "(" << (f.is_co_device ? "co_device_function " : "function ") << f.name << " " << at(f.location);
    if (f.is_template) {
      out_ << " (template";
      for (const TemplateParam& p : f.template_params) out_ << " (" << p.kind << " " << p.name << ")";
      out_ << ")";
    }
    if (!f.specialization_args.empty()) {
      out_ << " (specialization";
      list(f.specialization_args);
      out_ << ")";
    }
    out_ << " (returns ";
    type(f.return_type);
    out_ << ")";
    for (const Parameter& p : f.params) {
      line(indent + 1) << "(param ";
      type(p.type);
      if (p.by_reference) out_ << " &";
      out_ << " " << (p.name.empty() ? "(unnamed)" : p.name) << " " << at(p.location) << ")";
    }
    if (f.body) statement(*f.body, indent + 1);
    out_ << ")";
  }

  void type(const TypeRef& t) {
    if (t.storage != Storage::none) out_ << storage_name(t.storage) << " ";
    if (t.is_mutable) out_ << "mutable ";
    out_ << (t.name.empty() ? "mdspan" : t.name);
    const bool rank_only = t.kind == TypeKind::element && t.rank;  // f32 mdspan<2>
    if (rank_only) out_ << " mdspan";
    if (t.rank) {
      out_ << "<";
      expr(*t.rank);
      out_ << ">";
    }
    if (t.arrivals) {
      out_ << "<";
      expr(*t.arrivals);
      out_ << ">";
    }
    if (t.has_shape && !rank_only) {
      out_ << " [";
      for (size_t i = 0; i < t.shape.size(); ++i) {
        if (i) out_ << " ";
        expr(*t.shape[i]);
      }
      out_ << "]";
    }
  }

  void list(const ExprList& items) {
    for (const ExprPtr& e : items) {
      out_ << " ";
      expr(*e);
    }
  }

  void modifiers(const std::vector<Modifier>& mods) {
    for (const Modifier& m : mods) {
      out_ << "." << m.name;
      if (m.has_template_args) template_args(m.template_args);
    }
  }

  void template_args(const ExprList& args) {
    out_ << "<";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out_ << " ";
      expr(*args[i]);
    }
    out_ << ">";
  }

  // ------------------------------------------------------------ statements

  void statement(const Stmt& s, int indent) {
    for (const Attribute& a : s.attributes) {
      line(indent) << "[[" << a.name;
      list(a.args);
      out_ << "]]";
    }
    std::visit([&](const auto& node) { print(node, s, indent); }, s.node);
  }

  void body(const StmtPtr& s, int indent) {
    if (s) statement(*s, indent);
    else line(indent) << "(empty)";
  }

  void print(const Block& b, const Stmt& s, int indent) {
    line(indent) << "(block " << at(s.location);
    for (const StmtPtr& child : b.statements) statement(*child, indent + 1);
    out_ << ")";
  }
  void print(const Declaration& d, const Stmt& s, int indent) {
    line(indent) << "(decl " << at(s.location) << " ";
    type(d.type);
    for (const Declarator& dec : d.declarators) {
      out_ << " (" << dec.name;
      if (dec.array_size) {
        out_ << " [";
        expr(*dec.array_size);
        out_ << "]";
      }
      for (const ExprPtr& dim : dec.more_array_dims) {
        out_ << "[";
        expr(*dim);
        out_ << "]";
      }
      if (dec.init == Declarator::Init::equals) out_ << " =";
      if (dec.init == Declarator::Init::colon) out_ << " :";
      if (dec.init == Declarator::Init::braces) out_ << " {";
      list(dec.init_values);
      if (dec.init == Declarator::Init::braces) out_ << " }";
      out_ << ")";
    }
    out_ << ")";
  }
  void print(const Assignment& a, const Stmt& s, int indent) {
    line(indent) << "(assign " << at(s.location) << " " << assign_op_name(a.op) << " ";
    expr(*a.target);
    out_ << " ";
    expr(*a.value);
    out_ << ")";
  }
  void print(const ExprStatement& e, const Stmt& s, int indent) {
    line(indent) << "(expr " << at(s.location) << " ";
    expr(*e.expr);
    out_ << ")";
  }
  void indices(const std::optional<Identifier>& tuple, const std::vector<Identifier>& names, bool braced) {
    if (tuple) out_ << tuple->name << " = ";
    if (braced) out_ << "{";
    for (size_t i = 0; i < names.size(); ++i) out_ << (i ? " " : "") << names[i].name;
    if (braced) out_ << "}";
  }
  void print(const Parallel& p, const Stmt& s, int indent) {
    line(indent) << "(parallel" << (p.is_async ? ".async " : " ") << at(s.location);
    if (p.stream) {
      out_ << " (stream ";
      expr(*p.stream);
      out_ << ")";
    }
    for (const ParallelLevel& level : p.levels) {
      line(indent + 1) << "(level " << at(level.location) << " ";
      if (level.indices.empty()) out_ << "_";
      indices(level.tuple_name, level.indices, level.braced);
      out_ << " by ";
      expr(*level.count);
      if (level.space != SpaceSpecifier::none) out_ << " : " << space_name(level.space);
      if (!level.device.empty()) out_ << "(" << level.device << ")";
      if (level.cooperative) out_ << "<cooperative>";
      out_ << ")";
    }
    body(p.body, indent + 1);
    out_ << ")";
  }
  void print(const Loop& l, const Stmt& s, int indent) {
    const char* kind = l.kind == LoopKind::with ? "with" : l.kind == LoopKind::apply ? "apply" : "foreach";
    line(indent) << "(" << kind << " " << at(s.location) << " ";
    loop_binding(l.tuple_name, l.indices, l.braced, l.bound.get());
    for (const LoopBinding& b : l.more_bindings) {
      out_ << ", ";
      loop_binding(b.tuple_name, b.indices, b.braced, b.bound.get());
    }
    for (const WhereBind& w : l.where) out_ << " (where " << w.first.name << " <-> " << w.second.name << ")";
    for (const Attribute& h : l.hints) {
      out_ << " (hint " << h.name;
      list(h.args);
      out_ << ")";
    }
    body(l.body, indent + 1);
    out_ << ")";
  }
  void loop_binding(const std::optional<Identifier>& tuple_name, const std::vector<LoopIndex>& names, bool braced,
                    const Expr* bound) {
    if (tuple_name) out_ << tuple_name->name << " = ";
    if (braced) out_ << "{";
    for (size_t i = 0; i < names.size(); ++i) {
      out_ << (i ? " " : "");
      if (names[i].local_name) out_ << names[i].local_name->name << "=";
      out_ << names[i].name.name;
      if (names[i].range) expr(*names[i].range);
    }
    if (braced) out_ << "}";
    if (bound) {
      out_ << " in ";
      expr(*bound);
    }
  }
  void print(const While& w, const Stmt& s, int indent) {
    line(indent) << "(while " << at(s.location) << " ";
    expr(*w.condition);
    body(w.body, indent + 1);
    out_ << ")";
  }
  void print(const If& i, const Stmt& s, int indent) {
    line(indent) << "(if" << (i.is_constexpr ? " constexpr " : " ") << at(s.location) << " ";
    expr(*i.condition);
    body(i.then_branch, indent + 1);
    if (i.else_branch) {
      line(indent + 1) << "(else";
      statement(*i.else_branch, indent + 2);
      out_ << ")";
    }
    out_ << ")";
  }
  void print(const Copy& c, const Stmt& s, int indent) {
    line(indent) << "(" << (c.engine == Engine::tma ? "tma." : "dma.") << copy_op_name(c.op);
    if (!c.op_args.empty()) template_args(c.op_args);
    modifiers(c.modifiers);
    out_ << " " << at(s.location);
    if (c.future) {
      out_ << " (future ";
      expr(*c.future);
      out_ << ")";
    }
    if (c.source) {
      out_ << " (source ";
      expr(*c.source);
      out_ << ")";
    }
    if (c.destination) {
      out_ << " (dest ";
      expr(*c.destination);
      out_ << ")";
    } else if (c.destination_storage != Storage::none) {
      out_ << " (dest " << storage_name(c.destination_storage) << ")";
    }
    if (!c.after.empty()) {
      out_ << " (after";
      list(c.after);
      out_ << ")";
    }
    out_ << ")";
  }
  void print(const Mma& m, const Stmt& s, int indent) {
    line(indent) << "(mma." << (m.op == MmaOp::multiply ? m.layout : mma_op_name(m.op));
    modifiers(m.modifiers);
    out_ << " " << at(s.location);
    if (m.result) {
      out_ << (m.frag_declaration ? " (frag " : " (result ");
      expr(*m.result);
      for (const ExprPtr& dim : m.array_dims) {
        out_ << "[";
        expr(*dim);
        out_ << "]";
      }
      out_ << ")";
    }
    list(m.operands);
    out_ << ")";
  }
  void print(const Wait& w, const Stmt& s, int indent) {
    line(indent) << "(wait " << at(s.location);
    list(w.targets);
    out_ << ")";
  }
  void print(const Trigger& t, const Stmt& s, int indent) {
    line(indent) << "(trigger" << (t.scope.empty() ? "" : "." + t.scope) << " " << at(s.location);
    list(t.targets);
    if (!t.after.empty()) {
      out_ << " (after";
      list(t.after);
      out_ << ")";
    }
    out_ << ")";
  }
  void print(const InThreads& t, const Stmt& s, int indent) {
    line(indent) << (t.is_async ? "(inthreads.async " : "(inthreads ") << at(s.location) << " ";
    expr(*t.condition);
    body(t.body, indent + 1);
    out_ << ")";
  }
  void print(const Sync& y, const Stmt& s, int indent) {
    line(indent) << "(sync." << y.scope;
    if (y.level != SpaceSpecifier::none) out_ << " : " << space_name(y.level);
    if (!y.storage.empty()) out_ << "<" << y.storage << ">";
    out_ << " " << at(s.location) << ")";
  }
  void print(const Return& r, const Stmt& s, int indent) {
    line(indent) << "(return " << at(s.location);
    if (r.value) {
      out_ << " ";
      expr(*r.value);
    }
    out_ << ")";
  }
  void print(const Break&, const Stmt& s, int indent) { line(indent) << "(break " << at(s.location) << ")"; }
  void print(const Continue&, const Stmt& s, int indent) { line(indent) << "(continue " << at(s.location) << ")"; }
  void print(const CallStatement& c, const Stmt& s, int indent) {
    line(indent) << "(call " << at(s.location) << " " << c.callee;
    if (!c.template_args.empty()) template_args(c.template_args);
    list(c.args);
    out_ << ")";
  }
  void print(const Assert& a, const Stmt& s, int indent) {
    line(indent) << (a.is_static ? "(static_assert " : "(assert ") << at(s.location) << " ";
    expr(*a.condition);
    if (a.message) {
      out_ << " ";
      expr(*a.message);
    }
    out_ << ")";
  }
  void print(const Swap& w, const Stmt& s, int indent) {
    line(indent) << (w.rotate ? "(rotate " : "(swap ") << at(s.location) << " ";
    expr(*w.first);
    out_ << " ";
    expr(*w.second);
    list(w.more);
    out_ << ")";
  }
  void print(const Yield& y, const Stmt& s, int indent) {
    line(indent) << "(yield " << at(s.location);
    if (y.value) {
      out_ << " ";
      expr(*y.value);
    }
    out_ << ")";
  }
  void asm_operands(const char* name, const std::vector<AsmOperand>& ops) {
    out_ << " (" << name;
    for (const AsmOperand& op : ops) {
      out_ << " (";
      if (!op.symbolic_name.empty()) out_ << "[" << op.symbolic_name << "] ";
      out_ << op.constraint << " ";
      expr(*op.value);
      out_ << ")";
    }
    out_ << ")";
  }
  void print(const Asm& a, const Stmt& s, int indent) {
    line(indent) << "(asm " << at(s.location) << (a.is_volatile ? " volatile" : "");
    for (const std::string& t : a.templates) out_ << " " << t;
    asm_operands("outputs", a.outputs);
    asm_operands("inputs", a.inputs);
    out_ << " (clobbers";
    for (const std::string& c : a.clobbers) out_ << " " << c;
    out_ << "))";
  }

  // ----------------------------------------------------------- expressions

  void expr(const Expr& e) {
    std::visit([&](const auto& node) { print_expr(node); }, e.node);
  }
  void print_expr(const IntegerLiteral& n) { out_ << n.spelling; }
  void print_expr(const FloatLiteral& n) { out_ << n.spelling; }
  void print_expr(const BoolLiteral& n) { out_ << (n.value ? "true" : "false"); }
  void print_expr(const StringLiteral& n) { out_ << n.spelling; }
  void print_expr(const Name& n) { out_ << n.name; }
  void print_expr(const Wildcard&) { out_ << "_"; }
  void print_expr(const Unary& n) {
    out_ << "(" << unary_op_name(n.op) << " ";
    expr(*n.operand);
    out_ << ")";
  }
  void print_expr(const Binary& n) {
    out_ << "(" << (n.moves_bound ? "#" : "") << binary_op_name(n.op) << " ";
    expr(*n.lhs);
    out_ << " ";
    expr(*n.rhs);
    out_ << ")";
  }
  void print_expr(const Conditional& n) {
    out_ << "(? ";
    expr(*n.condition);
    out_ << " ";
    expr(*n.then_value);
    out_ << " ";
    expr(*n.else_value);
    out_ << ")";
  }
  void print_expr(const Call& n) {
    out_ << (n.with_call_keyword ? "(call-keyword " : "(call ");
    expr(*n.callee);
    if (!n.template_args.empty()) template_args(n.template_args);
    list(n.args);
    out_ << ")";
  }
  void print_expr(const Convert& n) {
    out_ << "(__to " << n.target << " ";
    expr(*n.operand);
    out_ << ")";
  }
  void print_expr(const Member& n) {
    out_ << "(." << n.name << (n.space.empty() ? "" : "<" + n.space + ">") << (n.has_args ? "() " : " ");
    expr(*n.object);
    list(n.args);
    out_ << ")";
  }
  void print_expr(const Subscript& n) {
    out_ << (n.braces ? "(pick " : "(index ");
    expr(*n.object);
    list(n.indices);
    out_ << ")";
  }
  void print_expr(const ITuple& n) {
    out_ << "{";
    for (size_t i = 0; i < n.elements.size(); ++i) {
      if (i) out_ << " ";
      expr(*n.elements[i]);
    }
    out_ << "}";
  }
  void print_expr(const ShapeList& n) {
    out_ << "[";
    for (size_t i = 0; i < n.dims.size(); ++i) {
      if (i) out_ << " ";
      expr(*n.dims[i]);
    }
    out_ << "]";
  }
  void print_expr(const ElementCount& n) {
    out_ << "|";
    expr(*n.operand);
    out_ << "|";
  }
  void print_expr(const Range& n) {
    out_ << "(range";
    for (const ExprPtr* part : {&n.start, &n.end, &n.stride}) {
      out_ << " ";
      if (*part) expr(**part);
      else out_ << "-";
    }
    out_ << ")";
  }

  std::ostringstream out_;
};

}  // namespace

std::string print_ast(const Program& program) { return Printer().program(program); }

std::string print_expression(const Expr& expr) { return Printer().expr_text(expr); }

bool statement_mentions(const Program& program, const SourceLocation& where, const std::string& identifier) {
  if (where.offset < 0 || static_cast<std::size_t>(where.offset) >= program.source.size()) return true;  // unknown: assume so
  std::vector<Diagnostic> ignored;
  const std::vector<Token> tokens =
      tokenize(std::string_view(program.source).substr(static_cast<std::size_t>(where.offset)), ignored);
  const bool braced = !tokens.empty() && tokens[0].is("{");
  int depth = 0;
  for (const Token& t : tokens) {
    if (t.is_identifier() && t.text == identifier) return true;
    if (t.is("{")) ++depth;
    else if (t.is("}") && --depth <= 0 && braced) return false;
    else if (t.is(";") && depth == 0 && !braced) return false;
  }
  return false;
}

std::string source_text(const Program& program, const Expr& e) {
  if (e.source_begin < 0 || e.source_end <= e.source_begin || static_cast<std::size_t>(e.source_end) > program.source.size())
    return print_expression(e);
  std::string text;
  for (int i = e.source_begin; i < e.source_end; ++i) {
    const char c = program.source[static_cast<std::size_t>(i)];
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space) text += c;
    else if (!text.empty() && text.back() != ' ') text += ' ';
  }
  return text;
}

}  // namespace croq::frontend
