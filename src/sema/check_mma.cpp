// mma.fill / mma.load / mma.row.row / mma.commit / mma.store (docs/guide/targets.md): operand kinds, element types, ranks, whole warpgroups, the
// accumulator's life and the operand layouts. The tile extents (64 rows, a
// common K, N up to 256, swizzle spans matching row bytes) are checked per call.
#include "frontend/host_code.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

bool mma_input_type(DType t) { return t == DType::f16 || t == DType::bf16; }

// Whether `name` is the accumulator (first operand) of an mma in `s`.
bool accumulates_into(const Stmt& s, const std::string& name) {
  return std::visit([&](const auto& n) -> bool {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Mma>) {
      const auto* acc = n.op == MmaOp::multiply && !n.operands.empty() ? std::get_if<Name>(&n.operands[0]->node) : nullptr;
      return acc && acc->name == name;
    } else if constexpr (std::is_same_v<T, Block>) {
      for (const auto& c : n.statements)
        if (accumulates_into(*c, name)) return true;
      return false;
    } else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While> || std::is_same_v<T, InThreads> ||
                         std::is_same_v<T, Parallel>) {
      return n.body && accumulates_into(*n.body, name);
    } else if constexpr (std::is_same_v<T, If>) {
      return accumulates_into(*n.then_branch, name) || (n.else_branch && accumulates_into(*n.else_branch, name));
    } else {
      return false;
    }
  }, s.node);
}

// Whether `s` stands directly in the body of a function of one kernel that
// is no host program: what it declares is declared at the top of that kernel.
bool at_kernel_top(const Function& fn, const Stmt& s) {
  const auto* body = fn.body ? std::get_if<Block>(&fn.body->node) : nullptr;
  if (!body || frontend::ast::kernel_count(fn) != 1 || frontend::ast::is_host_program(fn)) return false;
  for (const auto& c : body->statements)
    if (c.get() == &s) return true;
  return false;
}

// What lowering reads of an mma statement: its modifiers, decoded once.
// The checks of each form have accepted exactly these modifiers.
MmaProtocol mma_protocol(const Mma& m) {
  MmaProtocol p;
  for (const Modifier& mod : m.modifiers) {
    if (mod.name == "f32") p.accumulator = DType::f32;
    else if (mod.name == "f16") p.accumulator = DType::f16;
    else if (mod.name == "s32") p.accumulator = DType::s32;
    else if (mod.name == "swiz") p.swizzle = &mod;
    else if (mod.name == "frag") p.to_registers = true;
    else if (mod.name == "transp") p.transpose = true;
  }
  if (m.op == MmaOp::store && find_modifier(m.modifiers, "mask")) {  // mma.store.mask acc, tile, rows[, cols]
    p.mask_rows = m.operands[2].get();
    p.mask_cols = m.operands.size() == 4 ? m.operands[3].get() : nullptr;
  }
  p.sparse = m.op == MmaOp::multiply && m.operands.size() == 4 && find_modifier(m.modifiers, "sp");
  return p;
}

}  // namespace

void MmaChecker::require_warpgroups(const Stmt& s, const std::string& op, bool block_scope_fill) {
  // Croqtile also runs mma at other scopes; the operation is checked as usual.
  // Directly in a `: group` level each warp runs its own m16n8 tiles
  // (mma.sync on every target from sm_80, sm_90a included); an accumulator
  // filled at block scope is each warp's own in the `: group` levels below.
  if (!c_.levels.on_whole_warpgroups() && !c_.levels.on_single_warps() && !(block_scope_fill && c_.levels.at_block_scope()))
    limitation(Rule::mma_warpgroups, s.location,
         (cx_.wgmma() ? "WGMMA runs on whole warpgroups: put the "
                  : "mma runs on whole warpgroups (4 warps of 16 rows each): put the ") +
             op + " inside `parallel p by N : group-4`",
         cx_.region_.active ? "an inthreads.async region must select whole warpgroups (multiples of 128 threads)" : "");
}

Accumulator* MmaChecker::accumulator(const Expr& e) {
  if (const auto* n = std::get_if<Name>(&e.node))
    if (const Symbol* sym = lookup(n->name); sym && cx_.accumulator_arrays_.count(sym))
      fail(Rule::buffer_array_unselected, e.location,
           "`" + n->name + "` is an array of accumulators; an mma operation takes one of them",
           "select one: `" + n->name + "[i][j]`");
  Type v = c_.expressions.expr(e);
  require_ok(v);
  if (v.kind != Kind::accumulator)
    fail(Rule::accumulator_expected, e.location, "expected an accumulator from `mma.fill`, got `" + text(e) + "`", "",
         notes_of(v));
  const std::size_t dims = v.accumulator->array_dims.size();
  if (v.selected_dims < dims) {
    std::string which = text(e);
    for (std::size_t d = v.selected_dims; d < dims; ++d) which += std::string("[") + "ijklmn"[d % 6] + "]";
    fail(Rule::accumulator_array_unselected, e.location,
         "`" + text(e) + "` is an array of accumulators; name one, e.g. `" + which + "`",
         "an mma operation takes one accumulator", notes_of(v));
  }
  return v.accumulator;
}

void MmaChecker::mma_statement(const Stmt& s, const Mma& m) {
  // A statement with an error or a limitation has no protocol: lowering
  // reports sema's diagnostic when it meets it (tests lower such sources).
  const std::size_t reported = cx_.diagnostics_.size() + cx_.limitations_.size();
  mma_forms(s, m);
  if (cx_.trial_ || cx_.diagnostics_.size() + cx_.limitations_.size() != reported) return;
  MmaProtocol p = mma_protocol(m);
  if (const auto* name = m.op == MmaOp::load && m.result ? std::get_if<Name>(&m.result->node) : nullptr)
    if (const Symbol* sym = lookup(name->name); sym && sym->type.kind == Kind::accumulator) {
      p.accumulator_load = true;  // the initial value of an accumulator (accumulator_load)
      p.accumulator = sym->type.accumulator->dtype;
    } else if (sym && sym->type.kind == Kind::operand) {
      p.to_registers = false;  // a warp's `.frag` load of global or local memory: a plain warp operand
    } else if (sym && sym->type.is_tile() && sym->type.buffer && sym->type.buffer->fragment) {
      p.to_registers = true;  // a warpgroup's load of a global tile: a register fragment, `.frag` or not
    }
  cx_.out_.mmas[&m] = p;
}

// The accumulator an mma's first operand names, without reporting anything:
// null when it names none. An array named whole counts as all of it.
Accumulator* MmaChecker::written_accumulator(const Expr& e) {
  const auto* base = &e;
  while (const auto* ix = std::get_if<Subscript>(&base->node)) base = ix->object.get();
  const auto* n = std::get_if<Name>(&base->node);
  const Symbol* sym = n ? lookup(n->name) : nullptr;
  return sym && sym->type.kind == Kind::accumulator ? sym->type.accumulator : nullptr;
}

void MmaChecker::mma_forms(const Stmt& s, const Mma& m) {
  if (cx_.scope_ == Scope::kernel && !m.frag_declaration) {
    // Croqtile's front end takes it (its parse and inference tests do);
    // nothing here can run it: a limitation, not an error, and no rule of
    // the device's forms applies. Its operands still name what is in scope
    // (a parallel index past its statement is an error).
    for (const ExprPtr& operand : m.operands) require_ok(c_.expressions.expr(*operand));
    if (const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr)
      define(name->name, Type{}, Origin::mma_result, m.result->location, "mma." + std::string(mma_op_name(m.op)));
    limitation(Rule::mma_outside_parallel, s.location,
               (m.op == MmaOp::multiply ? "mma." + m.layout : "mma." + std::string(mma_op_name(m.op))) +
                   " outside every parallel statement is not supported by libcroqjit: the host has no accumulators",
               "move it into the `parallel` statement whose threads multiply");
    return;
  }
  if (cx_.options_.target && !cx_.options_.target->mma_sync() && !cx_.needs_sm80_reported_) {
    cx_.needs_sm80_reported_ = true;
    fail(Rule::needs_sm80, s.location,
         "mma lowers to WGMMA on sm_90a and to mma.sync m16n8k16 on sm_80 to sm_89; compiling for " +
             cx_.options_.target->arch + " has neither");
  }
  if (m.op == MmaOp::scale) return mma_scale(s, m);  // check_mma_scale.cpp
  if (m.op == MmaOp::multiply && m.operands.size() == 5 && find_modifier(m.modifiers, "scale"))
    return mma_scaled_multiply(s, m);  // acc, lhs, rhs, and the scales of both sides (check_mma_scale.cpp)
  const std::size_t operands[] = {1, 1, 3, 0, 2};  // fill, load, multiply, commit, store
  const std::size_t n = operands[static_cast<int>(m.op)];
  // Croqtile's other forms: refilling an accumulator, sparse multiplies
  // (metadata operand); masked stores are checked in check_mma_store.cpp.
  const bool refill = m.op == MmaOp::fill && m.operands.size() == 2 && !m.result;
  const bool sparse = m.op == MmaOp::multiply && m.operands.size() == 4;
  if (refill) {  // refills an accumulator, nothing else
    // A fragment loaded from global memory may serve as an accumulator; one
    // that no mma accumulates into is an operand.
    const auto* n = std::get_if<Name>(&m.operands[0]->node);
    const Symbol* loaded = n ? lookup(n->name) : nullptr;
    if (loaded && (loaded->type.is_error() || loaded->type.kind == Kind::operand) && loaded->detail == "mma.load" && cx_.fn_.body &&
        !accumulates_into(*cx_.fn_.body, n->name))
      fail(Rule::accumulator_expected, m.operands[0]->location,
           "`" + n->name + "` is an mma.load result that no mma accumulates into; mma.fill refills accumulators",
           "fill the accumulator of the mma instead");
    accumulator(*m.operands[0]);
  }
  if (m.op == MmaOp::load && m.operands.size() == 2 && !m.result) return fragment_load(s, m);  // mma.load src, frag
  if (sparse) return mma_sparse_multiply(s, m);
  if (m.op == MmaOp::store && (m.operands.size() > 2 || find_modifier(m.modifiers, "mask")))
    return mma_store_mask(s, m);  // check_mma_store.cpp
  if (refill) {
    Type v = c_.expressions.expr(*m.operands[1]);
    require_ok(v);
    if (v.kind != Kind::scalar)
      fail(Rule::mma_fill_value, m.operands[1]->location, "mma.fill takes the new value, such as 0.0f", "", notes_of(v));
    return;
  }
  if (m.op != MmaOp::commit && m.operands.size() != n)
    fail(Rule::mma_operand_count, s.location,
         "mma." + std::string(mma_op_name(m.op)) + " takes " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") +
             ", got " + std::to_string(m.operands.size()));
  switch (m.op) {
    case MmaOp::fill: return mma_fill(s, m);
    case MmaOp::load: return mma_load(s, m);
    case MmaOp::multiply: return mma_multiply(s, m);
    case MmaOp::store: return mma_store(s, m);
    case MmaOp::commit: return;
    case MmaOp::scale: return;
  }
}

void MmaChecker::mma_fill(const Stmt& s, const Mma& m) {
  const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr;
  if (!name) fail(Rule::mma_result, s.location, "mma.fill makes an accumulator: `acc = mma.fill.f32 0.0f;`");
  // `frag mc[2][3] {0.0f}` is a fill too: of an array of accumulators.
  const std::string what = m.frag_declaration ? "frag" : "mma.fill";
  std::vector<std::optional<std::int64_t>> array_dims;
  for (const ExprPtr& dim : m.array_dims) {
    std::optional<std::int64_t> n = c_.expressions.constant(*dim, "an array size");
    if (n && *n < 1)
      fail(Rule::buffer_array_empty, dim->location, "an array of accumulators holds at least one, got " + std::to_string(*n));
    array_dims.push_back(n);
  }
  // `frag mc[..] {v};` outside every parallel statement, at the top of the
  // kernel: each thread's registers there too, so each warp's accumulators.
  const bool kernel_top = m.frag_declaration && cx_.scope_ == Scope::kernel && at_kernel_top(cx_.fn_, s);
  if (!kernel_top) require_warpgroups(s, what, true);
  const bool warp = kernel_top || c_.levels.on_single_warps() || c_.levels.at_block_scope();
  DType dtype = DType::f32;
  for (const Modifier& mod : m.modifiers) {
    if (mod.name == "f32") dtype = DType::f32;
    else if (mod.name == "f16") dtype = DType::f16;
    else if (mod.name == "s32" && warp) dtype = DType::s32;  // a warp's integer mma
    else if (mod.name == "s32")
      limitation(Rule::unsupported_mma_type, mod.location,
                 "`" + what + "." + mod.name + "` accumulators are not supported yet by libcroqjit",
                 "libcroqjit accumulates in f32 or f16 (and in s32 at warp level: fill it in or above a `: group` level)");
    else
      fail(Rule::mma_fill_type, mod.location,
           what + " takes `.f32` or `.f16` (the accumulator type), got `." + mod.name + "`");
  }
  if (!array_dims.empty() && !warp)  // a warp's arrays are registers of each thread
    limitation(Rule::unsupported_fragment, m.result->location,
               "arrays of mma accumulators (`frag " + name->name + "[..]`) are not supported yet by libcroqjit",
               "fill one accumulator per name: `" + name->name + "0 = mma.fill.f32 0.0f;`");
  Type fill = c_.expressions.expr(*m.operands[0]);
  require_ok(fill);
  if (fill.kind != Kind::scalar)
    fail(Rule::mma_fill_value, m.operands[0]->location, "mma.fill takes the initial value, such as 0.0f", "", notes_of(fill));
  Accumulator& acc = cx_.out_.accumulators.emplace_back();
  acc.name = name->name;
  acc.dtype = dtype;
  acc.warp = warp;
  acc.array_dims = std::move(array_dims);
  Type t;
  t.kind = Kind::accumulator;
  t.accumulator = &acc;
  define(name->name, t, Origin::mma_result, m.result->location, "mma.fill");
}

void MmaChecker::mma_load(const Stmt& s, const Mma& m) {
  const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr;
  if (!name) fail(Rule::mma_result, s.location, "mma.load names its operand: `a = mma.load tile;`");
  const Expr& tile_expr = *m.operands[0];
  Type v = c_.expressions.expr(tile_expr);
  require_ok(v);
  if (v.strided)
    limitation(Rule::strided_view_use, tile_expr.location, "mma.load of a strided view is not supported yet by libcroqjit",
               "copy it to a shared tile with dma.copy first");
  // The tile as the initial value (C) of an accumulator an mma writes.
  if (cx_.fn_.body && accumulates_into(*cx_.fn_.body, name->name)) return accumulator_load(m, v, *name);
  const bool local = v.is_tile() && v.buffer->space == Space::local && !v.buffer->fragment;
  if (v.is_tile() && (v.buffer->space == Space::global || local) && c_.levels.on_single_warps()) {
    // A warp reads its fragments from global memory directly, and each lane
    // its elements from its own copy of a local tile (the lanes hold the
    // same values: the interpreter checks it).
    const std::string space = local ? "local" : "global";
    c_.expressions.require_selected(tile_expr, v);
    // `.frag` says what a warp's operand is anyway: registers of each lane.
    for (const Modifier& mod : m.modifiers)
      if (mod.name != "frag")
        fail(Rule::unsupported_modifier, mod.location,
             "`." + mod.name + "` on an mma.load from " + space + " memory is not supported yet by libcroqjit");
    v.kind = Kind::operand;
    v.swizzle = 0;
    define(name->name, v, Origin::mma_result, m.result->location, "mma.load");
    return;
  }
  if (v.is_tile() && v.buffer->space == Space::global && c_.levels.on_whole_warpgroups() && cx_.wgmma() &&
      mma_input_type(v.buffer->dtype) && v.rank == 2) {
    // A warpgroup's mma.load of a global tile is the register lhs of an
    // RS-mode WGMMA: each thread reads its fragment's elements (those past
    // the tensor's edge read 0), as mma.load.frag does from shared memory.
    c_.expressions.require_selected(tile_expr, v);
    for (const Modifier& mod : m.modifiers)
      if (mod.name != "frag")
        fail(Rule::unsupported_modifier, mod.location,
             "`." + mod.name + "` on an mma.load from global memory is not supported yet by libcroqjit");
    Type f;
    f.kind = Kind::tensor;
    f.rank = 2;
    f.buffer = cx_.new_buffer(name->name, v.buffer->dtype, 2, Space::local, m.result->location);
    f.buffer->fragment = true;
    define(name->name, f, Origin::mma_result, m.result->location, "mma.load");
    return;
  }
  if (v.is_tile() && v.buffer->space != Space::shared) {
    // Croqtile loads fragments from any memory: the operand is usable.
    limitation(Rule::unsupported_mma_form, tile_expr.location,
               "mma.load from " + std::string(v.buffer->space == Space::global ? "global" : "local") +
                   " memory is not supported yet by libcroqjit",
               "copy the tile to shared memory first");
    // Loaded fragments of global memory also serve as accumulators (C);
    // what it is depends on its uses: the name is left unchecked.
    define(name->name, Type{}, Origin::mma_result, m.result->location, "mma.load");
    return;
  }
  if (!v.is_tile() || v.buffer->space != Space::shared)
    fail(Rule::mma_operand_kind, tile_expr.location, "mma.load reads a tile in shared memory", "", notes_of(v));
  c_.expressions.require_selected(tile_expr, v);
  int span = 0;
  bool to_registers = false;  // mma.load.frag: a register fragment of the tile
  for (const Modifier& mod : m.modifiers) {
    if (mod.name == "swiz") span = c_.transfers.swizzle_span(mod);
    else if (mod.name == "frag") to_registers = true;
    else fail(Rule::unsupported_modifier, mod.location, "`." + mod.name + "` on mma.load is not supported yet by libcroqjit");
  }
  Buffer& b = *v.buffer;
  if (to_registers) {
    if (!find_modifier(m.modifiers, "swiz")) span = std::max(0, b.swizzle);  // the tile's own layout
    if (v.rank != 2)
      fail(Rule::mma_operand_rank, tile_expr.location, "mma.load.frag loads a 2-D tile, got rank " + std::to_string(v.rank),
           "", notes_of(v));
  }
  if (b.swizzle >= 0 && b.swizzle != span)
    fail(Rule::swizzle_layout, s.location,
         "mma.load" + (span ? ".swiz<" + std::to_string(span) + ">" : std::string()) +
             " does not match the tile's layout: it was copied with " +
             (b.swizzle ? ".swiz<" + std::to_string(b.swizzle) + ">" : std::string("no swizzle")),
         "use the same .swiz<N> on the copy and on mma.load", notes_of(v));
  // The first use fixes the tile's layout; a later copy must match it.
  if (b.swizzle < 0) b.swizzle = span;
  if (to_registers) {
    Type f;
    f.kind = Kind::tensor;
    f.rank = 2;
    f.buffer = cx_.new_buffer(name->name, b.dtype, 2, Space::local, m.result->location);
    f.buffer->fragment = true;
    define(name->name, f, Origin::mma_result, m.result->location, "mma.load");
    return;
  }
  v.kind = Kind::operand;
  v.swizzle = span;
  define(name->name, v, Origin::mma_result, m.result->location, "mma.load");
}

// `mc = mma.load tile;` where an mma accumulates into `mc`: the tile is the
// accumulator's initial value (C), read into a warp's fragment registers
// from global or shared memory (each lane its own elements), every element
// converted to the accumulator's type: that of the tile (bf16 into f32).
void MmaChecker::accumulator_load(const Mma& m, Type v, const Name& name) {
  const Expr& tile_expr = *m.operands[0];
  if (!v.is_tile() || v.buffer->fragment)
    fail(Rule::mma_operand_kind, tile_expr.location,
         "an accumulator's mma.load reads a tile of global or shared memory, got `" + text(tile_expr) + "`", "", notes_of(v));
  c_.expressions.require_selected(tile_expr, v);
  if (v.rank != 2)
    fail(Rule::mma_operand_rank, tile_expr.location,
         "an accumulator's mma.load reads a 2-D tile, got rank " + std::to_string(v.rank), "", notes_of(v));
  if (!m.modifiers.empty())
    fail(Rule::unsupported_modifier, m.modifiers[0].location,
         "`." + m.modifiers[0].name + "` on an accumulator's mma.load is not supported yet by libcroqjit");
  const DType t = v.buffer->dtype;
  if (t != DType::f32 && t != DType::f16 && t != DType::bf16 && t != DType::s32)
    fail(Rule::mma_fill_type, tile_expr.location,
         "an accumulator's mma.load reads a tile of f32, f16, bf16 or s32, got " + std::string(dtype_name(t)), "", notes_of(v));
  const Space space = v.buffer->space;
  if (!c_.levels.on_single_warps())
    limitation(Rule::unsupported_mma_form, tile_expr.location,
               "an accumulator loaded from memory (mma.load as the initial value) outside a warp's `: group` level is "
               "not supported yet by libcroqjit",
               "load it in the `: group` level of a warp's mma, or fill it with mma.fill");
  else if (space == Space::local)
    limitation(Rule::unsupported_mma_form, tile_expr.location,
               "an accumulator loaded from local memory (mma.load as the initial value) is not supported yet by libcroqjit",
               "load it from global or shared memory, or fill it with mma.fill");
  if (space == Space::shared && v.buffer->swizzle < 0) v.buffer->swizzle = 0;  // read row by row
  else if (space == Space::shared && v.buffer->swizzle > 0)
    fail(Rule::swizzle_layout, tile_expr.location,
         "an accumulator's mma.load reads plain rows, but the tile was copied with .swiz<" +
             std::to_string(v.buffer->swizzle) + ">",
         "copy the tile without .swiz<N>", notes_of(v));
  Accumulator& acc = cx_.out_.accumulators.emplace_back();
  acc.name = name.name;
  acc.dtype = t == DType::bf16 ? DType::f32 : t;
  acc.warp = true;
  Type a;
  a.kind = Kind::accumulator;
  a.accumulator = &acc;
  define(name.name, a, Origin::mma_result, m.result->location, "mma.load");
}

// One operand of mma.row.row: a shared tile (read with its own layout) or
// an mma.load result, of rank 2. Returns its element type.
DType MmaChecker::mma_operand(const Expr& e, bool lhs) {
  Type v = c_.expressions.expr(e);
  require_ok(v);
  if (v.is_tile() && v.buffer && v.buffer->fragment) {
    // RS-mode WGMMA takes lhs from registers; rhs always comes from shared memory.
    if (!lhs)
      fail(Rule::mma_operand_kind, e.location,
           "an mma's rhs is read from shared memory, so it cannot be the register fragment `" + text(e) + "`",
           "copy it to a shared tile, or multiply with the fragment as lhs");
    if (v.rank != 2)
      fail(Rule::mma_operand_rank, e.location, "an mma operand is a 2-D tile, got rank " + std::to_string(v.rank), "",
           notes_of(v));
    return v.buffer->dtype;
  }
  if (v.is_tile() && v.buffer->space == Space::global && c_.levels.on_single_warps()) {
    // a warp reads global tiles directly
  } else if (v.is_tile() && v.buffer->space == Space::shared) {
    // Not copied yet in the source (a consumer region before the producer's):
    // read unswizzled, so that layout is fixed now.
    if (v.buffer->swizzle < 0) v.buffer->swizzle = 0;
  } else if (v.kind != Kind::operand) {
    fail(Rule::mma_operand_kind, e.location, "an mma operand is a shared tile or the result of mma.load, got `" + text(e) + "`",
         "", notes_of(v));
  }
  if (v.strided)
    limitation(Rule::strided_view_use, e.location, "a strided view as an mma operand is not supported yet by libcroqjit",
               "copy it to a shared tile with dma.copy first");
  c_.expressions.require_selected(e, v);
  if (v.rank != 2)
    fail(Rule::mma_operand_rank, e.location, "an mma operand is a 2-D tile, got rank " + std::to_string(v.rank), "",
         notes_of(v));
  return v.buffer->dtype;
}

// `e` names a register fragment: a `frag` tile or an `mma.load.frag` result.
bool MmaChecker::register_operand(const Expr& e) {
  const auto* n = std::get_if<Name>(&e.node);
  const Symbol* sym = n ? lookup(n->name) : nullptr;
  return sym && sym->type.is_tile() && sym->type.buffer && sym->type.buffer->fragment;
}

void MmaChecker::mma_multiply(const Stmt& s, const Mma& m) {
  // Other layouts, modifiers and element types mean what they say: the
  // operands are checked and the accumulator counts as written, even when
  // the multiply is rejected (its store then reports nothing more).
  if (Accumulator* named = written_accumulator(*m.operands[0])) named->written = true;
  if (const Modifier* sp = find_modifier(m.modifiers, "sp"); sp && m.operands.size() == 3)
    fail(Rule::mma_sparse_metadata, sp->location,
         "a sparse mma (`.sp`) takes its sparsity metadata as a fourth operand, got 3 operands",
         "load the metadata and pass it last: `me = mma.load meta_tile; mma." + m.layout + ".sp acc, a, b, me;`");
  for (const Modifier& mod : m.modifiers)
    if ((mod.name != "sp" || m.operands.size() != 4) &&  // the sparse form (mma_sparse_multiply)
        (mod.name != "scale" || m.operands.size() != 5) &&  // the block-scaled form (mma_scaled_multiply)
        mod.name != "async")  // `f = mma.row.row.async ...`: waited by `wait f` (lowering infers the depth)
      limitation(Rule::unsupported_modifier, mod.location, "`." + mod.name + "` on mma is not supported yet by libcroqjit");
  require_warpgroups(s, "mma");
  Accumulator* acc = accumulator(*m.operands[0]);
  const DType a = mma_operand(*m.operands[1], true);
  const DType b = mma_operand(*m.operands[2]);
  const bool fp8 = is_fp8(a) && is_fp8(b);
  // Warp-level mma also reads rhs as [K, N] (row.col: ldmatrix.trans), and
  // so does RS-mode WGMMA (lhs a register fragment: imm-trans-b).
  const bool lhs_in_registers = register_operand(*m.operands[1]);
  // col.row / col.col: lhs [K, M], M contiguous (WGMMA's imm-trans-a), from
  // shared memory on whole warpgroups only.
  const bool m_major = m.layout == "col.row" || m.layout == "col.col";
  const bool m_major_ok = m_major && cx_.wgmma() && !c_.levels.on_single_warps() && !lhs_in_registers && !fp8;
  if (m.layout != "row.row" && !m_major_ok &&
      !(m.layout == "row.col" && (c_.levels.on_single_warps() || lhs_in_registers || cx_.wgmma()) && !fp8))
    limitation(Rule::unsupported_mma_layout, s.location,
               fp8 ? "mma." + m.layout + " on fp8 tiles is not supported: WGMMA reads fp8 operands K-major only; "
                     "write mma.row.row (lhs [M, K], rhs [N, K], both K contiguous)"
               : m_major ? "mma." + m.layout + " (lhs [K, M], M contiguous) is not supported yet here: libcroqjit lowers it "
                           "to WGMMA (sm_90a) with the lhs a shared tile, in a group-4 level"
                         : "mma." + m.layout + " is not supported yet; libcroqjit lowers mma.row.row (lhs [M, K], rhs [N, K], both K contiguous)");
  // Integer mma multiplies 8-bit operands into s32 (PTX has no s32 x s32
  // form; Croqtile's documentation lists s8 into s32).
  // Croqtile's type inference takes s32 tiles: a limitation, not an error.
  if (a == DType::s32 || b == DType::s32) {
    limitation(Rule::unsupported_mma_type, s.location,
               "mma on s32 tiles is not supported by libcroqjit (PTX has no s32 x s32 mma): integer mma takes s8 or u8 "
               "operands into an s32 accumulator",
               "convert the operands to s8 or u8 and fill the accumulator with mma.fill.s32");
    return;
  }
  const bool other_type = a == b && (a == DType::s8 || a == DType::u8 || a == DType::f32);
  // A warp's mma.sync also multiplies s8 and u8 (into s32) and f32 as tf32.
  const bool warp_int = c_.levels.on_single_warps() && a == b && (a == DType::s8 || a == DType::u8);
  const bool warp_tf32 = c_.levels.on_single_warps() && a == b && a == DType::f32;
  if (other_type && !warp_int && !warp_tf32)
    limitation(Rule::unsupported_mma_type, s.location,
               "mma on " + std::string(dtype_name(a)) + " tiles is not supported yet by libcroqjit",
               "libcroqjit multiplies f16, bf16 or fp8 (f8_e4m3, f8_e5m2) tiles; a warp's mma (in a `: group` level) "
               "also s8, u8 and f32");
  if (warp_int && acc->dtype != DType::s32)
    fail(Rule::mma_element_types, s.location,
         "a warp's mma on " + std::string(dtype_name(a)) + " tiles accumulates in s32, but `" + text(*m.operands[0]) +
             "` is " + std::string(dtype_name(acc->dtype)),
         "fill it with mma.fill.s32");
  if (warp_tf32 && acc->dtype != DType::f32)
    fail(Rule::mma_element_types, s.location,
         "a warp's mma on f32 tiles (as tf32) accumulates in f32, but `" + text(*m.operands[0]) + "` is " +
             std::string(dtype_name(acc->dtype)),
         "fill it with mma.fill.f32");
  if (acc->dtype == DType::s32 && !warp_int)
    fail(Rule::mma_element_types, s.location,
         "an s32 accumulator takes s8 or u8 tiles, got " + std::string(dtype_name(a)) + " and " + std::string(dtype_name(b)));
  // fp8 multiplies only as WGMMA here (sm_89's mma.sync form is not lowered).
  if (fp8 && c_.levels.on_single_warps())
    limitation(Rule::unsupported_mma_type, s.location,
               "warp-level mma on fp8 tiles is not supported: a warp's mma is mma.sync, which libcroqjit lowers for "
               "f16 and bf16 only",
               "multiply fp8 tiles on whole warpgroups (WGMMA, sm_90a), or convert them to f16 or bf16");
  else if (fp8 && !cx_.wgmma())
    limitation(Rule::unsupported_mma_type, s.location,
               "mma on fp8 tiles lowers to WGMMA (sm_90a) only; libcroqjit has no mma.sync form for them (compiling for " +
                   cx_.options_.target->arch + ")",
               "compile for sm_90a, or convert the tiles to f16 or bf16");
  if (!other_type && !fp8 && (a != b || !mma_input_type(a)))
    fail(Rule::mma_element_types, s.location,
         std::string(cx_.wgmma() && !c_.levels.on_single_warps() ? "WGMMA multiplies f16 or bf16 tiles (both the same) or fp8 tiles (f8_e4m3, f8_e5m2, in any mix)"
                             : "mma.sync multiplies f16 or bf16 tiles (both the same)") +
             ", got " + std::string(dtype_name(a)) + " and " + std::string(dtype_name(b)));
  if (!other_type && !fp8 && acc->dtype == DType::f16 && a != DType::f16)
    fail(Rule::mma_element_types, s.location, "an f16 accumulator takes f16 or fp8 inputs; use mma.fill.f32 for bf16");
  // `f = mma... ;` names the multiply's completion, which `wait f` waits for.
  if (const auto* name = m.result ? std::get_if<Name>(&m.result->node) : nullptr) {
    Type f;
    f.kind = Kind::mma_future;
    define(name->name, f, Origin::mma_result, m.result->location, "mma");
  }
}

void MmaChecker::mma_store(const Stmt& s, const Mma& m) {
  require_warpgroups(s, "mma.store");
  Accumulator* acc = accumulator(*m.operands[0]);
  if (!acc->written)
    fail(Rule::mma_store_unwritten, s.location, "mma.store of an accumulator that no mma has written",
         "multiply into it first: `mma.row.row " + text(*m.operands[0]) + ", a, b;`");
  const Expr& dst_expr = *m.operands[1];
  Type d = c_.expressions.expr(dst_expr);
  require_ok(d);
  if (d.kind != Kind::tensor || d.pending != Pending::none || d.rank != 2)
    fail(Rule::mma_store_destination, dst_expr.location, "mma.store writes a 2-D tile of shared or global memory", "",
         notes_of(d));
  c_.expressions.require_selected(dst_expr, d);
  if (d.strided)
    limitation(Rule::strided_view_use, dst_expr.location, "mma.store into a strided view is not supported yet by libcroqjit",
               "store into a tile, then copy it with dma.copy");
  Buffer& b = *d.buffer;
  // `.transp` stores the accumulator as [N, M].
  for (const Modifier& mod : m.modifiers)
    if (mod.name != "mask" && mod.name != "transp" && mod.name != "async" &&  // .async: complete before the tile's next reader
        mod.name != "swiz")
      fail(Rule::unsupported_modifier, mod.location, "`." + mod.name + "` on mma.store is not supported yet by libcroqjit");
  if (acc->dtype != DType::s32 && b.dtype == DType::s32) {
    limitation(Rule::unsupported_mma_type, dst_expr.location,
               "storing an " + std::string(dtype_name(acc->dtype)) + " accumulator to s32 tiles is not supported yet by libcroqjit",
               "accumulate s8 or u8 tiles in s32 (mma.fill.s32) at warp level");
    return;
  }
  if (acc->dtype == DType::s32 && b.dtype != DType::s32)
    fail(Rule::mma_store_destination, dst_expr.location, "an s32 accumulator is stored to s32 tiles", "", notes_of(d));
  if (acc->dtype != DType::s32 && b.dtype != DType::f32 && b.dtype != DType::f16 && b.dtype != DType::bf16)
    fail(Rule::mma_store_destination, dst_expr.location, "mma.store writes f32, f16 or bf16 tiles", "", notes_of(d));
  const Modifier* swiz = find_modifier(m.modifiers, "swiz");
  if (b.space == Space::shared) {
    // `.swiz<N>` lays the tile out for a swizzled TMA store (no bank
    // conflicts either); without it the store keeps the tile's layout.
    const int span = swiz ? c_.transfers.swizzle_span(*swiz) : std::max(0, b.swizzle);
    if (b.swizzle >= 0 && b.swizzle != span)
      fail(Rule::swizzle_layout, swiz->location,
           "mma.store.swiz<" + std::to_string(span) + "> does not match the tile's layout: it was written with " +
               (b.swizzle ? ".swiz<" + std::to_string(b.swizzle) + ">" : std::string("no swizzle")),
           "use one layout for the tile: the same .swiz<N> on every copy and store of it", notes_of(d));
    for (const char* form : {"transp", "mask"})
      if (span > 0 && find_modifier(m.modifiers, form))
        limitation(Rule::mma_store_swizzled, dst_expr.location,
                   "mma.store." + std::string(form) + " into a swizzled shared tile is not supported yet by libcroqjit",
                   "store into an unswizzled tile");
    b.swizzle = span;
  } else if (swiz) {
    fail(Rule::swizzle_needs_shared, swiz->location,
         "`.swiz<N>` lays out a tile in shared memory; the destination is not shared", "", notes_of(d));
  } else if (b.space == Space::local) {
    fail(Rule::mma_store_destination, dst_expr.location, "mma.store writes shared or global memory", "", notes_of(d));
  }
}

}  // namespace croq::sema::detail
