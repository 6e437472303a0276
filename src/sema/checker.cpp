// sema::check: runs the Checker over each function, collects the
// diagnostics of all of them and throws one CompileError. Also the
// checker's diagnostics, symbols and the function-level rules (parameters,
// the returned tensor).
#include <algorithm>

#include "frontend/frontend.hpp"
#include "frontend/parser.hpp"
#include "sema/checker.hpp"

namespace croq::sema {

const CheckedFunction* CheckedProgram::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f->function->name == name) return f.get();
  return nullptr;
}

namespace detail {

Context::Context(const Program& program, const Function& fn, const Options& options, CheckedFunction& out,
                 std::vector<Diagnostic>& diagnostics, int& errors, std::vector<Diagnostic>& limitations)
    : program_(program),
      fn_(fn),
      options_(options),
      out_(out),
      diagnostics_(diagnostics),
      errors_(errors),
      limitations_(limitations) {}

Checker::Checker(const Program& program, const Function& fn, const Options& options, CheckedFunction& out,
                 std::vector<Diagnostic>& diagnostics, int& errors, std::vector<Diagnostic>& limitations)
    : context(program, fn, options, out, diagnostics, errors, limitations),
      expressions(*this),
      statements(*this),
      transfers(*this),
      mma(*this),
      levels(*this) {}

// ---- diagnostics ---------------------------------------------------------------

void Context::report(Rule rule, const SourceLocation& at, std::string message, std::string hint,
                     std::vector<std::string> notes) {
  Diagnostic d;
  d.message = std::move(message);
  d.line = at.line;
  d.column = at.column;
  d.length = std::max(1, at.length);
  d.hint = std::move(hint);
  d.rule = rule_id(rule);
  d.notes = std::move(notes);
  if (is_limitation(rule) && !options_.limitations_are_errors) {
    d.severity = Severity::warning;
    d.notes.push_back("valid Croqtile; croq::compile rejects it until libcroqjit can run it");
    limitations_.push_back(std::move(d));
    return;
  }
  diagnostics_.push_back(std::move(d));
  if (++errors_ >= options_.max_errors) throw Stop{};
}

void Context::fail(Rule rule, const SourceLocation& at, std::string message, std::string hint,
                   std::vector<std::string> notes) {
  // After a limitation too the statement is not checked further: what it
  // means is not modelled here.
  report(rule, at, std::move(message), std::move(hint), std::move(notes));
  throw Abort{};
}

void Context::limitation(Rule rule, const SourceLocation& at, std::string message, std::string hint) {
  report(rule, at, std::move(message), std::move(hint), {});
}

bool Context::has_error_between(const SourceLocation& from, int last_line) const {
  return std::any_of(diagnostics_.begin(), diagnostics_.end(), [&](const Diagnostic& d) {
    return d.severity == Severity::error && d.line <= last_line &&
           (d.line > from.line || (d.line == from.line && d.column >= from.column));
  });
}

std::string Context::text(const Expr& e) const { return frontend::source_text(program_, e); }

std::vector<std::string> Context::notes_of(const Type& t) const {
  if (!t.from) return {};
  return {describe(*t.from)};
}

// ---- symbols ---------------------------------------------------------------------

Symbol* Context::define(const std::string& name, Type type, Origin origin, const SourceLocation& where,
                        std::string detail) {
  Symbol& s = out_.symbols.emplace_back();
  s.name = name;
  s.type = std::move(type);
  s.origin = origin;
  s.where = where;
  s.detail = std::move(detail);
  s.type.from = &s;
  auto& scope = scopes_.back();
  for (auto& entry : scope)
    if (entry.first == name) {  // a redefinition in the same scope replaces the name, as in lowering
      entry.second = &s;
      return &s;
    }
  scope.emplace_back(name, &s);
  return &s;
}

const Symbol* Context::lookup(const std::string& name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
    for (const auto& entry : *scope)
      if (entry.first == name) return entry.second;
  for (const auto& entry : symbolic_dims_)
    if (entry.first == name) return entry.second;
  return nullptr;
}

Buffer* Context::new_buffer(std::string name, DType dtype, int rank, Space space, const SourceLocation& where) {
  Buffer& b = out_.buffers.emplace_back();
  b.name = std::move(name);
  b.dtype = dtype;
  b.rank = rank;
  b.space = space;
  b.where = where;
  return &b;
}

// ---- the function ----------------------------------------------------------------

// The type of a parameter as written: "f16 [M, K]".
std::string parameter_text(const Program& program, const Parameter& p) {
  std::string s = p.type.name;
  if (!p.type.has_shape) return s;
  s += " [";
  for (std::size_t i = 0; i < p.type.shape.size(); ++i)
    s += (i ? ", " : "") + frontend::source_text(program, *p.type.shape[i]);
  return s + "]";
}

namespace {


// Whether a `return VALUE;` stands anywhere in `s` (rank-only return types
// need one).
bool returns_a_value(const Stmt& s) {
  return std::visit(
      [](const auto& n) -> bool {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Return>) {
          return n.value != nullptr;
        } else if constexpr (std::is_same_v<T, Block>) {
          return std::any_of(n.statements.begin(), n.statements.end(),
                             [](const StmtPtr& c) { return c && returns_a_value(*c); });
        } else if constexpr (std::is_same_v<T, If>) {
          return (n.then_branch && returns_a_value(*n.then_branch)) ||
                 (n.else_branch && returns_a_value(*n.else_branch));
        } else if constexpr (requires { n.body; }) {
          return n.body && returns_a_value(*n.body);
        } else {
          return false;
        }
      },
      s.node);
}

}  // namespace

void Checker::run() {
  context.push();
  define_parameters();
  const TypeRef& ret = context.fn_.return_type;
  const bool rank_only = is_rank_only(ret);  // f32 mdspan<2>
  if (returned_tensor_type(context.fn_) && (ret.kind == TypeKind::auto_ || rank_only)) {
    // `auto` or a rank only, returning a declared tensor: its declaration
    // gives the type. As in Croqtile, a rank-only return type fixes the rank;
    // the element type and the shape are the returned tensor's.
    context.has_output_ = true;
    context.output_declared_ = true;
    context.out_.returned = returned_name(context.fn_);
    if (rank_only) {
      try {
        context.output_rank_only_ = expressions.constant(*ret.rank, "the rank");
      } catch (const Abort&) {
      }
    }
  } else if (rank_only) {
    // Other returned values are checked at their `return`.
    try {
      if (!context.fn_.body || !returns_a_value(*context.fn_.body))
        context.fail(Rule::missing_return, ret.location, "the function returns a tensor but has no `return NAME;`",
             "declare the result, e.g. `" + ret.name + " [...] output;`, and end with `return output;`");
    } catch (const Abort&) {
    }
  } else if (ret.kind == TypeKind::element && ret.has_shape) {
    try {
      if (!parse_dtype(ret.name, context.output_dtype_))
        context.fail(Rule::unsupported_element_type, ret.location, "element type `" + ret.name + "` is not supported yet");
      for (const auto& d : ret.shape) context.output_rank_ += static_cast<int>(expressions.shape_dims(*d).size());
      context.has_output_ = true;
      context.out_.returned = returned_name(context.fn_);
      if (context.out_.returned.empty())
        context.fail(Rule::missing_return, ret.location, "the function returns a tensor but has no `return NAME;`",
             "declare the result, e.g. `" + ret.name + " [...] output;`, and end with `return output;`");
    } catch (const Abort&) {
    }
  }
  if (context.fn_.body) statements.nested(*context.fn_.body);
  context.pop();
}

// Each parameter, and the symbolic dims among the extents of the tensor ones.
void Checker::define_parameters() {
  for (std::size_t i = 0; i < context.fn_.params.size(); ++i) {
    const Parameter& p = context.fn_.params[i];
    try {
      context.require_new_name(p.name, p.location);
    } catch (const Abort&) {
    }
    Type t;
    try {
      statements.parameter_form(p);
      if (p.type.has_shape) {
        DType dtype;
        if (!parse_dtype(p.type.name, dtype))
          context.fail(Rule::unsupported_element_type, p.type.location, "element type `" + p.type.name + "` is not supported yet");
        t.kind = Kind::tensor;
        t.rank = static_cast<int>(p.type.shape.size());
        t.buffer = context.new_buffer(p.name, dtype, t.rank, Space::global, p.location);
        t.buffer->parameter = static_cast<int>(i);
        t.buffer->declared_global = p.type.storage == Storage::global;
        for (const auto& dim : p.type.shape) {  // the extents written as integers
          const auto* unbounded = std::get_if<Name>(&dim->node);
          if (unbounded && unbounded->name == "??" && t.dims.size() < 32) t.unbounded_dims |= 1u << t.dims.size();
          const auto* lit = std::get_if<IntegerLiteral>(&dim->node);
          t.dims.push_back(lit ? std::optional<std::int64_t>(static_cast<std::int64_t>(lit->value)) : std::nullopt);
        }
      } else {
        t.kind = Kind::scalar;
        DType dtype;
        t.number = p.type.kind == TypeKind::int_    ? Number::int_
                   : p.type.kind == TypeKind::bool_ ? Number::bool_
                   : p.type.kind == TypeKind::element && parse_dtype(p.type.name, dtype)
                       ? (is_floating(dtype) ? Number::float_ : Number::int_)
                       : Number::unknown;
      }
    } catch (const Abort&) {
    }
    if (!p.name.empty()) {  // an unnamed parameter is part of the signature only
      context.define(p.name, t, Origin::parameter, p.location, parameter_text(context.program_, p))->parameter = static_cast<int>(i);
    }
    // Symbolic dims: names among the extents, bound by the first argument that has them.
    for (std::size_t d = 0; p.type.has_shape && d < p.type.shape.size(); ++d) {
      const auto* n = std::get_if<Name>(&p.type.shape[d]->node);
      if (!n || n->name == "?" || n->name == "??") continue;  // `?`, `??`: a dim without a name
      auto known = std::find_if(context.symbolic_dims_.begin(), context.symbolic_dims_.end(), [&](const auto& e) { return e.first == n->name; });
      if (known != context.symbolic_dims_.end()) {
        context.out_.resolved[p.type.shape[d].get()] = known->second;
        continue;
      }
      Type dim;
      dim.kind = Kind::scalar;
      dim.known = Known::at_specialization;
      Symbol& sym = context.out_.symbols.emplace_back();
      sym.name = n->name;
      sym.type = dim;
      sym.type.from = &sym;
      sym.origin = Origin::symbolic_dim;
      sym.where = p.type.shape[d]->location;
      sym.parameter = static_cast<int>(i);
      sym.detail = p.name;
      context.symbolic_dims_.emplace_back(n->name, &sym);
      context.out_.resolved[p.type.shape[d].get()] = &sym;
    }
  }
}

}  // namespace detail

CheckedProgram check(const frontend::ast::Program& program, const std::vector<const frontend::ast::Function*>& functions,
                     const Options& options) {
  CheckedProgram checked;
  checked.program = &program;
  checked.target = options.target;
  std::vector<Diagnostic> diagnostics;
  int errors = 0;
  std::vector<const frontend::ast::Function*> selected = functions;
  if (selected.empty())
    for (const auto& f : program.functions) selected.push_back(&f);
  detail::check_device_code(program, diagnostics, errors);
  try {
    for (const frontend::ast::Function* fn : selected) {
      if (fn->is_co_device) continue;  // checked where it is called, as the caller's statements (check_call.cpp)
      auto out = std::make_unique<CheckedFunction>();
      out->function = fn;
      detail::Checker checker(program, *fn, options, *out, diagnostics, errors, checked.limitations);
      checker.context.first_region_barrier_ = detail::calls_named_barriers(*fn, {}) ? 8 : 1;
      checker.run();
      const std::set<const frontend::ast::Function*>& expanded = checker.context.own_calls_.checked;
      const std::vector<const frontend::ast::Function*> called(expanded.begin(), expanded.end());
      out->future_rings = detail::future_rings(*fn);
      out->completing_triggers = detail::completing_triggers(*fn, called);
      out->uses_hopper = detail::uses_hopper(*fn, called);
      out->named_barriers = detail::calls_named_barriers(*fn, called);
      checked.functions.push_back(std::move(out));
    }
  } catch (const detail::Stop&) {
    Diagnostic d;
    d.severity = Severity::note;
    d.message = "stopped after " + std::to_string(errors) + " errors; fix these and check again";
    diagnostics.push_back(std::move(d));
  }
  auto by_position = [](const Diagnostic& a, const Diagnostic& b) {
    if (a.line == 0 || b.line == 0) return a.line != 0 && b.line == 0;  // unlocated notes last
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  };
  std::stable_sort(checked.limitations.begin(), checked.limitations.end(), by_position);
  // A __co_device__ function called by several kernels is checked for each.
  const auto same = [](const Diagnostic& a, const Diagnostic& b) {
    return a.line == b.line && a.column == b.column && a.rule == b.rule && a.message == b.message;
  };
  checked.limitations.erase(std::unique(checked.limitations.begin(), checked.limitations.end(), same),
                            checked.limitations.end());
  if (errors > 0) {
    // A limitation after an error in the same statement (on its line: `f =
    // dma.copy.async x => global;` that is never waited) adds nothing.
    const auto after_error = [&](const Diagnostic& l) {
      return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
        return d.severity == Severity::error && d.line == l.line && d.column <= l.column;
      });
    };
    checked.limitations.erase(std::remove_if(checked.limitations.begin(), checked.limitations.end(), after_error),
                              checked.limitations.end());
    diagnostics.insert(diagnostics.end(), checked.limitations.begin(), checked.limitations.end());
    std::stable_sort(diagnostics.begin(), diagnostics.end(), by_position);
    diagnostics.erase(std::unique(diagnostics.begin(), diagnostics.end(), same), diagnostics.end());
    if (options.keep_going) {
      for (auto& f : checked.functions) f->rejected = diagnostics;
      return checked;
    }
    throw CompileError(std::move(diagnostics), program.source, program.source_name);
  }
  return checked;
}

}  // namespace croq::sema
