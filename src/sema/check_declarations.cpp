// Declarations beyond plain tensors, scalars and events: named shapes
// (`sp : [7, 8]`, `mdspan<2> sp : ...`), tuples (`ituple<3> t = {...}`),
// register fragments (`frag f32 [64] row {0.0f}`), arrays of arrays
// (`s[4][2]`), `event<N>`; the parameter forms (`&`, unnamed, `?` dims, a rank only,
// `stream`); tuple picks and shape derivations (`t {(1), (0)}`,
// `sp [(0) / 2, 4]`); literals libcroqjit cannot print.
#include <cmath>
#include <limits>

#include "frontend/parameter_dims.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {
// A shape of `rank` extents known once the kernel is specialized.
Type unknown_shape(std::size_t rank) {
  Type sp;
  sp.kind = Kind::shape;
  sp.rank = static_cast<int>(rank);
  sp.elements.assign(rank, Type{Kind::scalar});
  for (Type& e : sp.elements) e.known = Known::at_specialization;
  return sp;
}

bool is_shape_list(const Expr& e) { return std::holds_alternative<ShapeList>(e.node); }

// Names the operand a pick `(k)` reads while an extent of a selection is checked.
class PickSource {
 public:
  PickSource(Context& cx, const Type* source, std::string text)
      : cx_(cx), outer_(cx.pick_source_), outer_text_(std::move(cx.pick_source_text_)) {
    cx_.pick_source_ = source;
    cx_.pick_source_text_ = std::move(text);
  }
  ~PickSource() {
    cx_.pick_source_ = outer_;
    cx_.pick_source_text_ = std::move(outer_text_);
  }
  PickSource(const PickSource&) = delete;
  PickSource& operator=(const PickSource&) = delete;

 private:
  Context& cx_;
  const Type* outer_;
  std::string outer_text_;
};

// "a shape" or "an ituple".
std::string kind_word(TypeKind k) { return k == TypeKind::ituple ? "an ituple" : "a shape"; }

}  // namespace

// ---- declarations ------------------------------------------------------------------

bool StatementChecker::declaration_form(const Stmt& s, const Declaration& d) {
  const TypeRef& t = d.type;
  if (t.storage == Storage::frag && t.kind == TypeKind::auto_) {
    // Its elements go unchecked; the array itself is not an mma operand.
    limitation(Rule::unsupported_fragment, t.location,
               "arrays of mma accumulators (`frag " + d.declarators.front().name + "[...]`) are not supported yet by libcroqjit",
               "fill one accumulator per tile: `mc = mma.fill.f32 0.0f;`");
    for (const Declarator& decl : d.declarators)
      cx_.accumulator_arrays_.insert(define(decl.name, Type{}, Origin::declaration, decl.location, "frag"));
    return true;
  }
  for (const Declarator& decl : d.declarators) {
    if (decl.more_array_dims.empty()) continue;
    // Each size of an array of arrays is a positive constant.
    std::vector<const Expr*> sizes{decl.array_size.get()};
    for (const ExprPtr& dim : decl.more_array_dims) sizes.push_back(dim.get());
    for (const Expr* size : sizes) {
      std::optional<std::int64_t> n = c_.expressions.constant(*size, "an array size");
      if (n && *n < 1)
        fail(t.kind == TypeKind::event ? Rule::event_count : Rule::buffer_array_empty, size->location,
             "an array size is at least 1, got " + std::to_string(*n));
    }
  }
  // An array of arrays of buffers is one ring (lower_array.cpp); of events,
  // one array of the product of the sizes, indexed row-major (lower_values.cpp).
  if (t.kind == TypeKind::event && t.arrivals)
    limitation(Rule::unsupported_event_arrivals, t.arrivals->location,
               "an explicit thread count (`event<" + text(*t.arrivals) + ">`) is not supported yet by libcroqjit",
               "leave the count out: libcroqjit derives it from the triggers");
  if (t.kind == TypeKind::mdspan || t.kind == TypeKind::ituple) {
    named_value_declaration(d);
    return true;
  }
  if (t.kind == TypeKind::auto_) {
    for (const Declarator& decl : d.declarators)
      if (decl.init_values.empty())
        fail(Rule::declaration_type, decl.location, "cannot tell the type of `" + decl.name + "` without a value",
             "give it a type (`mutable int " + decl.name + " = 0;`) or a value (`mutable " + decl.name + " = 0;`)");
    return false;
  }
  if (t.kind == TypeKind::element && t.rank) {  // f32 mdspan<2> x;
    fail(Rule::unsupported_declaration, t.location,
         "buffers of a rank only (`" + t.name + " mdspan<" + text(*t.rank) + ">`) are not supported yet by libcroqjit",
         "give the shape, e.g. `" + t.name + " [M, N] " + d.declarators.front().name + ";`");
  }
  if (t.storage == Storage::frag) {
    c_.mma.fragment_declaration(s, d);
    return true;
  }
  return false;
}

// sp : [7, 8];  mdspan<2> sp : ...;  ituple<3> t = {a, b, c};
void StatementChecker::named_value_declaration(const Declaration& d) {
  const TypeRef& t = d.type;
  const bool shape = t.kind == TypeKind::mdspan;
  std::optional<std::int64_t> rank;
  if (t.rank) {
    rank = c_.expressions.constant(*t.rank, "the rank");
    if (!rank) fail(Rule::constant_required, t.rank->location, "the rank must be a constant, got `" + text(*t.rank) + "`");
    if (*rank < 1) fail(Rule::declaration_rank, t.rank->location, "a rank is at least 1, got " + std::to_string(*rank));
  }
  if (t.is_mutable)
    fail(Rule::declaration_type, t.location, std::string(shape ? "shapes" : "ituples") + " cannot be `mutable`",
         "declare a new name for each value instead");
  for (const Declarator& decl : d.declarators) {
    const std::string what = kind_word(t.kind);
    if (decl.array_size)
      fail(Rule::declaration_type, decl.array_size->location, "there are no arrays of " + std::string(shape ? "shapes" : "ituples"),
           shape ? "" : "a tuple of N values is `ituple<N> " + decl.name + " = {...};`");
    const auto wanted = shape ? Declarator::Init::colon : Declarator::Init::equals;
    if (decl.init == Declarator::Init::none)
      fail(Rule::named_value_init, decl.location, "`" + decl.name + "` is " + what + " and must be given its value",
           shape ? "write `" + decl.name + " : [7, 8];`" : "write `ituple " + decl.name + " = {7, 8};`");
    if (decl.init != wanted)
      fail(Rule::named_value_init, decl.location,
           shape ? "a shape is defined with `:`, not `=` or `{}` (`" + decl.name + "`)"
                 : "an ituple is initialized with `=`, not `:` or `{}` (`" + decl.name + "`)",
           shape ? "write `" + decl.name + " : [7, 8];`" : "write `ituple " + decl.name + " = {7, 8};`");
    const Expr& init = *decl.init_values.front();
    try {  // reported, and the value checked on
      cx_.require_new_name(decl.name, decl.location);
    } catch (const Abort&) {
    }
    if (shape && std::holds_alternative<ITuple>(init.node))
      fail(Rule::shape_expected, init.location,
           "`" + text(init) + "` is a tuple; `" + decl.name + "` is a shape such as `[" +
               text(init).substr(1, text(init).size() - 2) + "]`",
           "a shape's extents are written in brackets");
    if (shape && !is_shape_list(init))
      if (const Symbol* m = mutable_in(init))
        fail(Rule::shape_expected, init.location,
             "`" + decl.name + "` is a shape, whose extents are fixed; `" + m->name + "` in `" + text(init) +
                 "` is mutable",
             "", {describe(*m)});
    if (!shape && is_shape_list(init))
      fail(Rule::named_value_init, init.location, "an ituple is initialized with `{...}`, not `[...]`",
           "write `ituple " + decl.name + " = {" + text(init).substr(1, text(init).size() - 2) + "};`");
    cx_.deriving_shape_ = shape;
    Type v;
    try {
      v = c_.expressions.expr(init);
    } catch (const Abort&) {
      cx_.deriving_shape_ = false;
      // The name stays a shape of its rank (`b : [e + 1, 7]` with a dim
      // libcroqjit cannot take), so its uses (`b(0)`) report nothing more.
      if (const auto* list = shape ? std::get_if<ShapeList>(&init.node) : nullptr)
        define(decl.name, unknown_shape(list->dims.size()), Origin::declaration, decl.location);
      throw;
    } catch (...) {
      cx_.deriving_shape_ = false;
      throw;
    }
    cx_.deriving_shape_ = false;
    require_ok(v);
    if (!shape && v.kind != Kind::tuple && v.kind != Kind::shape)
      fail(Rule::named_value_init, init.location,
           "`" + text(init) + "` is " + kind_phrase(v.kind) + "; `" + decl.name + "` is an ituple and takes `{...}`", "",
           notes_of(v));
    if (shape && v.kind != Kind::shape && v.kind != Kind::tuple && !(v.kind == Kind::tensor || v.kind == Kind::future))
      fail(Rule::shape_expected, init.location,
           "`" + text(init) + "` is " + kind_phrase(v.kind) + "; `" + decl.name + "` is a shape such as `[7, 8]`", "",
           notes_of(v));
    std::optional<std::int64_t> got;
    if (v.kind == Kind::shape || v.kind == Kind::tensor || v.kind == Kind::future) got = v.rank;
    if (v.kind == Kind::tuple) got = static_cast<std::int64_t>(v.elements.size());
    if (v.kind == Kind::shape && !v.elements.empty()) got = static_cast<std::int64_t>(v.elements.size());
    if (rank && got && *got != *rank)
      fail(Rule::declaration_rank, init.location,
           "`" + decl.name + "` is declared with rank " + std::to_string(*rank) + " but `" + text(init) + "` has " +
               std::to_string(*got) + (*got == 1 ? " value" : " values"),
           "", notes_of(v));
    if (shape && v.kind == Kind::tuple && std::holds_alternative<Binary>(init.node))
      fail(Rule::shape_expected, init.location,
           "`" + text(init) + "` is a tuple (two shapes divide into counts); `" + decl.name + "` is a shape", "",
           notes_of(v));
    if (shape && v.kind == Kind::shape)
      for (std::size_t i = 0; i < v.elements.size(); ++i)
        if (v.elements[i].known_now() && v.elements[i].value <= 0)
          fail(Rule::extent_positive, init.location,
               "extent " + std::to_string(i) + " of `" + decl.name + "` is " + std::to_string(v.elements[i].value) +
                   "; a shape's extents are positive");
    if (v.kind == Kind::tensor || v.kind == Kind::future)  // `same : x` names x's shape
      v = unknown_shape(static_cast<std::size_t>(v.rank));
    define(decl.name, v, Origin::declaration, decl.location);
  }
}

// frag f32 [64, 64] acc {0.0f};  a register tile, spread over the threads of
// the level it is declared in. Checked as a local buffer.
void MmaChecker::fragment_declaration(const Stmt& s, const Declaration& d) {
  const TypeRef& t = d.type;
  if (!t.has_shape)
    fail(Rule::declaration_type, t.location, "a fragment is a tile and needs a shape, e.g. `frag " + t.name + " [64] x;`");
  // libcroqjit holds a fragment of the block or a warpgroup in WGMMA's
  // register layout; one of a thread level by rows over its threads.
  const bool per_thread_level = cx_.scope_ == Scope::thread;
  if (!per_thread_level && !cx_.wgmma())
    limitation(Rule::unsupported_fragment, t.location,
               "register fragments are held in WGMMA's register layout, which libcroqjit has on sm_90a only (compiling for " +
                   cx_.options_.target->arch + ")",
               "compile for sm_90a, or declare it inside a `: thread` level, which spreads it over its threads");
  DType dtype;
  if (!parse_dtype(t.name, dtype))
    fail(Rule::unsupported_element_type, t.location, "element type `" + t.name + "` is not supported yet");
  int rank = 0;
  for (const auto& dim : t.shape) rank += static_cast<int>(c_.expressions.shape_dims(*dim).size());
  (void)s;
  for (const Declarator& decl : d.declarators) {
    if (decl.array_size)
      fail(Rule::declaration_type, decl.array_size->location, "there are no arrays of fragments",
           "declare one fragment with one more dimension");
    Type v;
    v.kind = Kind::tensor;
    v.rank = rank;
    v.buffer = cx_.new_buffer(decl.name, dtype, rank, Space::local, decl.location);
    v.buffer->fragment = true;
    if (per_thread_level) thread_fragments_.insert(v.buffer);
    define(decl.name, v, Origin::declaration, decl.location);
  }
}

// ---- parameters ----------------------------------------------------------------

void StatementChecker::parameter_form(const Parameter& p) {
  const TypeRef& t = p.type;
  const std::string name = p.name.empty() ? "an unnamed parameter" : "`" + p.name + "`";
  if (p.by_reference && !t.has_shape)
    fail(Rule::reference_parameter, p.location, "scalars are passed by value; " + name + " cannot take `&`",
         "remove the `&`");
  if (p.by_reference && t.storage == Storage::global)
    fail(Rule::reference_parameter, p.location, "a `global` parameter cannot be passed by reference (" + name + ")",
         "remove `global` or the `&`");
  // A rank only of a number from 1 to 8 has its dims already (`f32 [?, ?]`,
  // frontend::name_rank_only_parameters); any other rank is left here.
  if (is_rank_only(t))
    fail(Rule::unsupported_parameter, t.location,
         "parameters of a rank only (`" + t.name + " mdspan<" + text(*t.rank) + ">`) are supported with a rank from 1 to " +
             std::to_string(frontend::kMaxParameterRank) + " written as a number or a #define",
         "name the dims, e.g. `" + t.name + " [M, N]`");
  // `??`: no one knows the extent before the kernel runs; only global memory
  // holds such a tensor.
  for (const auto& dim : t.shape)
    if (const auto* n = std::get_if<Name>(&dim->node); n && n->name == "??") {
      if (t.storage != Storage::global)
        fail(Rule::unbounded_dim_scope, dim->location,
             "a parameter with an unbounded dim (`??`) is declared `global`; " + name + " is not",
             "write `global " + t.name + " [...] " + p.name + "`");
      limitation(Rule::unsupported_parameter, dim->location,
                 "unbounded dims (`??`) are not supported yet by libcroqjit", "name the dim, e.g. `[M, 4]`: the call binds it");
      break;
    }
  // A `?` dim takes the extent of the call's argument (bind/bind.cpp): nothing to check.
}

// ---- expressions ---------------------------------------------------------------

// t {(1), (0), 2}: a tuple from the elements of t (`(i)` is element i);
// sp [(0) / 2, 4] and x [(1), (0)]: a shape from the dims of sp or x's shape.
Type ExpressionChecker::pick(const Expr& e, const Subscript& s, const Type& object) {
  const bool tuple = s.braces;
  if (tuple ? object.kind != Kind::tuple
            : object.kind != Kind::shape && !(object.kind == Kind::tensor && !object.buffer->is_array))
    fail(Rule::pick_operand, s.object->location,
         "`" + text(*s.object) + "` is " + kind_phrase(object.kind) + "; " +
             (tuple ? "`{...}` after a name picks from an ituple" : "`[...]` after a shape derives a new shape"),
         "", notes_of(object));
  const std::int64_t size =
      tuple ? static_cast<std::int64_t>(object.elements.size())
            : (object.kind == Kind::shape && !object.elements.empty() ? static_cast<std::int64_t>(object.elements.size())
                                                                      : object.rank);
  Type out;
  out.kind = tuple ? Kind::tuple : Kind::shape;
  std::vector<SelectedDim> selection;
  for (const ExprPtr& index : s.indices) {
    // A parenthesized integer literal names an element of the operand.
    const Expr& i = *index;
    const bool parenthesized = is_pick(i);
    const auto* literal = std::get_if<IntegerLiteral>(&i.node);
    if (parenthesized) require_pick_in_range(i, literal->value, size, text(*s.object), object);
    Type element;
    if (!parenthesized) {
      {  // a pick inside the extent (`(0) / 2`) names an element of the operand too
        const PickSource source(cx_, &object, text(*s.object));
        element = expr(i);
      }
      require_ok(element);
      if (!element.is_number() || element.is_float())
        fail(Rule::arithmetic_operand, i.location,
             "`" + text(i) + "` is " + (element.is_float() ? std::string("a float") : kind_phrase(element.kind)) +
                 (tuple ? "; an element of an ituple is an integer" : "; an extent of a derived shape is an integer"),
             "", notes_of(element));
    } else if (tuple && literal->value < object.elements.size()) {
      element = object.elements[static_cast<std::size_t>(literal->value)];
    }
    if (tuple) {  // an ituple's elements keep their values, run-time ones too
      out.elements.push_back(element);
      selection.push_back(parenthesized ? SelectedDim{static_cast<int>(literal->value), nullptr} : SelectedDim{-1, &i});
      continue;
    }
    element.kind = Kind::scalar;
    element.known = Known::at_specialization;
    if (parenthesized && literal->value < 32) {  // element (i) of the operand
      const auto at = static_cast<std::size_t>(literal->value);
      element.unbounded = at < object.elements.size() ? object.elements[at].unbounded
                                                      : (object.unbounded_dims >> at & 1u) != 0;
    }
    out.elements.push_back(element);
    selection.push_back(parenthesized ? SelectedDim{static_cast<int>(literal->value), nullptr} : SelectedDim{-1, &i});
  }
  out.rank = static_cast<int>(out.elements.size());
  cx_.out_.shape_selections[&e] = std::move(selection);
  return out;
}

// `(k)`, a pick of element k of `source` (of `size` elements, -1 unknown).
void ExpressionChecker::require_pick_in_range(const Expr& e, std::uint64_t k, std::int64_t size, const std::string& source,
                                              const Type& object) {
  if (size > 0 && k >= static_cast<std::uint64_t>(size))
    fail(Rule::pick_index, e.location,
         "`" + source + "` has " + std::to_string(size) + (size == 1 ? " element" : " elements") + "; `(" +
             std::to_string(k) + ")` is not one of them",
         "elements count from 0", notes_of(object));
}

// A pick `(k)` inside an extent of `x [...]` or `t {...}` (cx_.pick_source_):
// element k of t, or dim k of x (known when the kernel is specialized).
Type ExpressionChecker::picked(const Expr& e, std::uint64_t k) {
  const Type& source = *cx_.pick_source_;
  const bool tuple = source.kind == Kind::tuple;
  const std::int64_t size = tuple || !source.elements.empty() ? static_cast<std::int64_t>(source.elements.size()) : source.rank;
  require_pick_in_range(e, k, size, cx_.pick_source_text_, source);
  if (tuple && k < source.elements.size()) return source.elements[static_cast<std::size_t>(k)];
  Type dim;
  dim.kind = Kind::scalar;
  dim.known = Known::at_specialization;
  return dim;
}

// `(2)` in `t.span[(2), 4]`: a parenthesized integer literal.
bool ExpressionChecker::is_pick(const Expr& e) const {
  return std::holds_alternative<IntegerLiteral>(e.node) && e.source_begin >= 0 &&
         cx_.program_.source[static_cast<std::size_t>(e.source_begin)] == '(';
}

void ExpressionChecker::literal_limits(const Expr& e) {
  if (const auto* i = std::get_if<IntegerLiteral>(&e.node);
      i && i->value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    fail(Rule::unsupported_literal, e.location,
         "integer literals above 9223372036854775807 (`" + i->spelling + "`) are not supported yet by libcroqjit");
}

// A tensor initializer's value when the source makes it a constant: an
// integer (exact), a float literal, or either negated.
static std::optional<Buffer::Initial> constant_initial(const Expr& e, const Type& v) {
  if (v.kind == Kind::scalar && !v.is_float() && v.known == Known::now) return Buffer::Initial{true, v.value, 0};
  const Expr* literal = &e;
  double sign = 1;
  if (const auto* u = std::get_if<Unary>(&e.node); u && (u->op == UnaryOp::negate || u->op == UnaryOp::plus)) {
    literal = u->operand.get();
    if (u->op == UnaryOp::negate) sign = -1;
  }
  if (const auto* f = std::get_if<FloatLiteral>(&literal->node)) return Buffer::Initial{false, 0, sign * f->value};
  return std::nullopt;
}

const char* const kSharedInitialBelowLevel =
    "an initial value of a shared tensor declared below the block's threads (in a group level, a region's thread "
    "level or a nested level) is not supported yet by libcroqjit";

// A tensor's `{v}`: its value when the source makes it a constant (sema's
// Buffer::initial, which lowering fills in); the forms libcroqjit does not
// fill are limitations.
std::optional<Buffer::Initial> StatementChecker::tensor_initial(const Declarator& decl, Storage storage) {
  std::optional<Buffer::Initial> initial;
  for (const auto& init : decl.init_values) {
    Type v = c_.expressions.expr(*init);
    require_ok(v);
    if (!v.is_number())
      fail(Rule::tensor_init, init->location,
           "`" + decl.name + "` is a tensor; it is initialized with a number, got `" + text(*init) + "`",
           "fill it with a value such as `{0}`, or copy the tensor in: `dma.copy " + text(*init) + " => " + decl.name + ";`",
           notes_of(v));
    if (&init != &decl.init_values.front()) {
      limitation(Rule::unsupported_expression, init->location,
                 "a tensor initialized with several values (`" + decl.name + "{..., " + text(*init) +
                     "}`) is not supported yet by libcroqjit",
                 "fill it with one value, e.g. `{0}`, and store the others in a parallel statement");
      continue;
    }
    initial = constant_initial(*init, v);
    // A shared or local tensor's kernel computes the value where it declares the tensor.
    if (!initial && v.kind == Kind::scalar && (storage == Storage::shared || storage == Storage::local))
      initial = Buffer::Initial{v.is_float() ? false : true, 0, 0, init.get()};
    if (!initial)
      limitation(Rule::unsupported_runtime_value, init->location,
                 "a tensor's initial value computed at run time (`" + text(*init) + "`) is not supported yet by libcroqjit",
                 "fill it with a constant, or store the value in a parallel statement");
  }
  // The threads declaring a shared tile fill it, then wait for each other:
  // the block's (or an inthreads.async region's), or a thread level's that
  // splits the block's threads directly.
  const bool whole_level = cx_.scope_ == Scope::block ||
                           (cx_.scope_ == Scope::thread && cx_.thread_level_ && cx_.group_levels_.empty() &&
                            !cx_.region_.active && cx_.inthreads_depth_ == 0);
  if (initial && storage == Storage::shared && !whole_level)
    limitation(Rule::unsupported_expression, decl.init_values.front()->location,
               kSharedInitialBelowLevel, "declare `" + decl.name + "` at block level, or store the value in the level");
  return initial;
}

}  // namespace croq::sema::detail
