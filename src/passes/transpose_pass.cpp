// Transposes through shared tiles (see passes.hpp): a flat level [M, N]
// whose body reads the instance's own elements of [M, N] tensors and writes
// `y[j, i]` of a [N, M] tensor becomes blocks that each move a T x T tile.
// Each thread loads C-element chunks of rows of the inputs (16 bytes of the
// narrowest element: one vector load), runs the element body over the
// chunk, and writes the results into a shared tile with padded rows (4
// bytes where rows start on chunks, so a column's elements fall in
// different banks; else what transpose_banks.hpp's model finds cheapest);
// after the block's
// barrier it gathers C elements of a column of the tile and stores them to
// a row of y as one vector. Every access to global memory is then a full
// 16-byte chunk of a row, where the flat level read rows and wrote columns
// (one 32-byte sector per element stored). Tiles that reach past M or N
// take a scalar path with bounds checks instead.
//
// The tile: 16 chunks across (8 for 1-byte elements), at most 128 elements,
// and 4 rows a thread: 64 x 64 for 4-byte elements in blocks of 256
// threads, 128 x 128 for 2-byte elements in blocks of 512. These reached
// 0.95x a device-to-device copy's bandwidth on an H200, the forms
// docs/how-to/memory-bound.md measured. Where the rows of x (or of y) do
// not start on whole chunks (a row length that is no multiple of the
// chunk), each row's piece is moved through the aligned chunks of the
// tensor's flat storage that cover it (T / C + 1 a row; a store writes
// the ones inside the piece and the C elements left at its ends), dealt
// over all the block's threads; where a base is not known to be
// aligned, that direction moves one element a thread, a warp along each
// row, with the same block and tile.
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "ir/builder.hpp"
#include "passes/flat_region.hpp"
#include "passes/passes.hpp"
#include "passes/transpose_banks.hpp"
#include "support/env.hpp"

namespace croq::passes {

namespace {

constexpr std::int64_t kChunkBytes = 16;       // the widest global access
constexpr std::int64_t kThreadTensorBytes = 32;  // the most one thread holds of one tensor's chunk
constexpr std::int64_t kTileMax = 128;
constexpr std::int64_t kRowsPerThread = 4;

// How the threads of one direction (loading x's rows, or storing y's) cover
// a tile: `across` threads take `chunk` elements each of a row, `down`
// thread rows take `rows` rows each.
struct Phase {
  std::int64_t chunk = 1, across = 0, down = 0, rows = 0;
  // Rows start off a chunk, so each row's piece is moved as the aligned
  // chunks of the tensor's flat storage that cover it (one more than a
  // whole row piece has).
  bool window = false;
};

struct Shape {
  std::int64_t m = 0, n = 0;  // the level [M, N]
  std::int64_t tile = 0;      // T
  std::int64_t threads = 0;
  Phase load, store;
};

// 16-byte chunks (`chunk` elements, 4 rows a thread) when every row of the
// tensors this direction reads or writes starts on a whole chunk; else one
// element a thread, a warp along each row, with the same threads.
Phase phase_for(bool chunked, std::int64_t chunk, std::int64_t tile, std::int64_t threads) {
  Phase p;
  p.chunk = chunked ? chunk : 1;
  p.across = tile / p.chunk;
  p.down = threads / p.across;
  p.rows = tile / p.down;
  return p;
}

// How a copy of the element body is made: element reads of buffer b become
// `reads[b]` (an expression of the element), the write to y becomes
// `write`, and the index lets of i and j take `i` and `j`.
struct Rewrite {
  std::string i_name, j_name;
  ir::ExprRef i, j;
  std::map<int, std::function<ir::ExprRef(const ir::ExprRef&)>> reads;
  int y = -1;
  ir::ExprRef write;
};

ir::ExprRef rewrite_expr(const ir::ExprRef& e, const Rewrite& rw) {
  if (!e) return e;
  if (e->kind == ir::ExprKind::element) {
    auto it = rw.reads.find(e->buffer);
    if (it != rw.reads.end()) return it->second(e);
    return e;
  }
  bool changed = false;
  std::vector<ir::ExprRef> operands;
  for (const ir::ExprRef& o : e->operands) {
    operands.push_back(rewrite_expr(o, rw));
    changed = changed || operands.back() != o;
  }
  if (!changed) return e;
  auto copy = std::make_shared<ir::Expr>(*e);
  copy->operands = std::move(operands);
  return copy;
}

ir::StmtList rewrite_body(const ir::StmtList& body, const Rewrite& rw);

ir::StmtPtr rewrite_stmt(const ir::Stmt& s, const Rewrite& rw) {
  auto r = [&](const ir::ExprRef& e) { return rewrite_expr(e, rw); };
  if (const auto* let = std::get_if<ir::Let>(&s.node)) {
    if (let->name == rw.i_name) return ir::make_stmt(ir::Let{let->name, let->type, true, rw.i}, s.where);
    if (let->name == rw.j_name) return ir::make_stmt(ir::Let{let->name, let->type, true, rw.j}, s.where);
    return ir::make_stmt(ir::Let{let->name, let->type, let->is_const, r(let->init)}, s.where);
  }
  if (const auto* a = std::get_if<ir::Assign>(&s.node)) {
    const bool to_y = a->target->kind == ir::ExprKind::element && a->target->buffer == rw.y;
    return ir::make_stmt(ir::Assign{to_y ? rw.write : r(a->target), a->op, r(a->value), r(a->guard)}, s.where);
  }
  if (const auto* f = std::get_if<ir::If>(&s.node)) {
    auto seq = [&](const ir::StmtPtr& b) -> ir::StmtPtr {
      if (!b) return nullptr;
      const auto& inner = std::get<ir::Seq>(b->node);
      return ir::make_stmt(ir::Seq{rewrite_body(inner.body, rw), inner.braces}, b->where);
    };
    return ir::make_stmt(ir::If{r(f->condition), seq(f->then_branch), seq(f->else_branch)}, s.where);
  }
  if (const auto* c = std::get_if<ir::Comment>(&s.node)) return ir::make_stmt(*c, s.where);
  return ir::make_stmt(std::get<ir::LineMark>(s.node), s.where);
}

ir::StmtList rewrite_body(const ir::StmtList& body, const Rewrite& rw) {
  ir::StmtList out;
  for (const ir::StmtPtr& s : body) out.push_back(rewrite_stmt(*s, rw));
  return out;
}

ir::StmtPtr seq(ir::StmtList body) { return ir::make_stmt(ir::Seq{std::move(body), true}); }

ir::StmtPtr unrolled(const std::string& var, std::int64_t count, ir::StmtList body) {
  ir::For loop;
  loop.var = var;
  loop.begin = ir::int_const(0);
  loop.end = ir::int_const(count);
  loop.body = seq(std::move(body));
  loop.unroll = true;
  return ir::make_stmt(std::move(loop));
}

ir::Tile tile2(int buffer, ir::ExprRef row, ir::ExprRef col, std::int64_t col_multiple, std::int64_t cols) {
  ir::Tile t;
  t.buffer = buffer;
  t.origin_multiple = {ir::is_zero(row) ? 0 : 1, col_multiple};  // 0: exactly 0
  t.origin = {std::move(row), std::move(col)};
  t.extent = {1, cols};
  return t;
}

ir::StmtPtr copy(ir::Tile src, ir::Tile dst) {
  ir::CopyTiles c;
  c.src = std::move(src);
  c.dst = std::move(dst);
  return ir::make_stmt(std::move(c));
}

// CROQ_TRANSPOSE_STORE_WINDOWS as a flag; nullopt (windows where they can be used) when unset or not a flag.
std::optional<bool> store_windows_forced() {
  const std::optional<std::string> text = support::env_string("CROQ_TRANSPOSE_STORE_WINDOWS");
  return text ? support::parse_flag(*text) : std::nullopt;
}

// CROQ_TRANSPOSE_PAD_WORDS=1..4: the tile's rows padded by that many words
// (elements wider than a word: that many elements), to time the bank
// model's pick against another; nullopt when unset or out of range.
std::optional<std::int64_t> padding_forced(const transpose::TilePattern& banks) {
  const std::optional<std::string> text = support::env_string("CROQ_TRANSPOSE_PAD_WORDS");
  if (!text || text->size() != 1 || (*text)[0] < '1' || (*text)[0] > '4') return std::nullopt;
  return ((*text)[0] - '0') * std::max<std::int64_t>(1, 4 / banks.element_bytes);
}

// The tile shape for the element sizes the body touches; nullopt when a
// tile would not pay (a level smaller than one tile) or the types are not
// whole bytes.
std::optional<Shape> shape_for(const ir::Kernel& k, const flat::Plan& plan) {
  std::int64_t narrow = kChunkBytes, wide = 1;
  for (const std::set<int>* set : {&plan.read, &plan.transposed})
    for (int b : *set) {
      const DType t = k.buffers[static_cast<std::size_t>(b)].dtype;
      if (is_subbyte(t)) return std::nullopt;
      const auto size = static_cast<std::int64_t>(dtype_size(t));
      narrow = std::min(narrow, size);
      wide = std::max(wide, size);
    }
  Shape s;
  s.m = plan.rows;
  s.n = plan.cols;
  std::int64_t chunk = kChunkBytes / narrow;
  while (chunk > 1 && chunk * wide > kThreadTensorBytes) chunk /= 2;
  s.tile = std::min(kTileMax, 16 * chunk);
  s.threads = (s.tile / chunk) * (s.tile / kRowsPerThread);
  if (chunk < 2 || s.m < s.tile || s.n < s.tile) return std::nullopt;
  // A row starts on a whole chunk when the row length is a multiple of it
  // and the tensor's base is aligned to its chunk's bytes.
  auto base_aligned = [&](int b) {
    const ir::Buffer& buf = k.buffers[static_cast<std::size_t>(b)];
    return buf.align_bytes % std::min(kChunkBytes, chunk * static_cast<std::int64_t>(dtype_size(buf.dtype))) == 0;
  };
  auto aligned = [&](int b, std::int64_t row) { return row % chunk == 0 && base_aligned(b); };
  bool load_chunked = true, load_window = s.n % chunk != 0;
  for (int b : plan.read) {
    load_chunked = load_chunked && aligned(b, s.n);
    load_window = load_window && base_aligned(b);
  }
  s.load = phase_for(load_chunked || load_window, chunk, s.tile, s.threads);
  s.load.window = load_window;
  const int y = *plan.transposed.begin();
  // Windows on both sides once measured slower for 2-byte elements than
  // window loads with element stores (H200, 16381 x 16387: f16 0.53 against
  // 0.78 of a copy), when a thread took the window chunks of its own rows
  // and the stores ran the vector and the element paths in every warp;
  // store_window now runs each once. CROQ_TRANSPOSE_STORE_WINDOWS=0 stores
  // elements instead, to time one form against the other.
  const bool store_window = s.m % chunk != 0 && base_aligned(y) && store_windows_forced().value_or(true);
  s.store = phase_for(aligned(y, s.m) || store_window, chunk, s.tile, s.threads);
  s.store.window = store_window;
  return s;
}

}  // namespace

namespace {

// The index expressions of the rewritten kernel.
struct Names {
  ir::Type index;
  ir::ExprRef bm, bn;  // the block's tile: rows bm * T of x, columns bn * T
  ir::ExprRef tid;
  ir::ExprRef r, c;    // the thread's row (of T / 4) and chunk (of T / C); not set for windows
};

ir::ExprRef num(std::int64_t v, const ir::Type& t) { return ir::int_const(v, t); }
ir::ExprRef plus(ir::ExprRef a, ir::ExprRef b) { return ir::binary("+", std::move(a), std::move(b)); }
ir::ExprRef times(ir::ExprRef a, std::int64_t v, const ir::Type& t) { return ir::binary("*", std::move(a), num(v, t)); }

// The thread's index, row and chunk lets (setting n.tid, n.r, n.c), after
// the block's barrier when `barrier_first`.
ir::StmtList thread_lets(ir::Kernel& kernel, const Phase& p, Names& n, bool barrier_first) {
  ir::StmtList out;
  if (barrier_first) {
    ir::Barrier b;
    b.set.tid = ir::special("threadIdx.x");
    b.set.count = ir::special("blockDim.x");
    out.push_back(ir::make_stmt(std::move(b)));
  }
  const std::string t = kernel.fresh("tid");
  out.push_back(ir::make_stmt(ir::Let{t, n.index, true, ir::special("threadIdx.x")}));
  n.tid = ir::var(t, n.index);
  if (p.window) return out;  // window_slots deals chunks by thread index
  const std::string c = kernel.fresh("chunk"), r = kernel.fresh("row");
  out.push_back(ir::make_stmt(ir::Let{c, n.index, true, ir::binary("%", ir::var(t, n.index), num(p.across, n.index))}));
  out.push_back(ir::make_stmt(ir::Let{r, n.index, true, ir::binary("/", ir::var(t, n.index), num(p.across, n.index))}));
  n.c = ir::var(c, n.index);
  n.r = ir::var(r, n.index);
  return out;
}

ir::StmtPtr region_of(ir::Mapping mapping, ir::StmtList body) {
  ir::Region region;
  region.mapping = mapping;
  region.body = seq(std::move(body));
  return ir::make_stmt(std::move(region));
}

// `if (condition) then else otherwise`, or `then` alone when every block takes it.
void branch(ir::StmtList& out, const ir::ExprRef& condition, ir::StmtList then, ir::StmtList otherwise) {
  if (!condition) {
    for (auto& s : then) out.push_back(std::move(s));
    return;
  }
  out.push_back(ir::make_stmt(ir::If{condition, seq(std::move(then)), seq(std::move(otherwise))}));
}

struct Kernel2 {
  ir::Kernel& kernel;
  const flat::Plan& plan;
  const Shape& s;
  const ir::StmtList& body;
  Rewrite base;  // the index let names and y
  int tile = -1;
  DType out = DType::f32;
};

// Statements inside `if (row < rows && col < cols)` when `bounded`.
ir::StmtList within(bool bounded, const ir::ExprRef& row, std::int64_t rows, const ir::ExprRef& col, std::int64_t cols,
                    ir::StmtList body, const ir::Type& ix) {
  if (!bounded) return body;
  ir::StmtList out;
  out.push_back(ir::make_stmt(ir::If{ir::all_of(ir::less(row, num(rows, ix)), ir::less(col, num(cols, ix))),
                                     seq(std::move(body)), nullptr}));
  return out;
}

// `element` for each element of each of the thread's rows: loops over k
// (rows) and e (elements of a chunk, 1 a thread here).
ir::StmtList element_loops(const std::string& k, const std::string& e, const Phase& p, ir::StmtList element) {
  ir::StmtList per_row;
  per_row.push_back(unrolled(e, p.chunk, std::move(element)));
  ir::StmtList out;
  out.push_back(unrolled(k, p.rows, std::move(per_row)));
  return out;
}

// The first thread level in chunks: each of the thread's rows, its chunk of
// every input in registers, the element body over the chunk into the shared
// tile. `bounded` (a tile past M or N): only the chunks inside, which are
// whole chunks of x since its rows are whole chunks.
ir::StmtList load_chunks(Kernel2& g, const Names& n, const Phase& p, bool bounded) {
  const ir::Type& ix = n.index;
  ir::StmtList out;
  std::map<int, int> registers;
  for (int b : g.plan.read) {
    const ir::Buffer& src = g.kernel.buffers[static_cast<std::size_t>(b)];
    registers[b] = flat::local_registers(g.kernel, flat::base_name(src.name) + "_chunk", src.dtype,
                                   {ir::Extent{p.rows, ""}, ir::Extent{p.chunk, ""}}, p.chunk);
    out.push_back(ir::make_stmt(ir::DeclareLocal{registers[b]}));
  }
  // Every chunk of the thread is loaded before the first is used, so all
  // are in flight at once (in the tiles at the edges too, where each is
  // inside a bounds check).
  const ir::ExprRef col0 = times(n.c, p.chunk, ix);
  auto row_of = [&](const std::string& k) { return plus(times(ir::var(k, ix), p.down, ix), n.r); };
  auto inside = [&](const std::string& k, ir::StmtList body) {
    return within(bounded, plus(times(n.bm, g.s.tile, ix), row_of(k)), g.s.m, plus(times(n.bn, g.s.tile, ix), col0),
                  g.s.n, std::move(body), ix);
  };
  const std::string k_load = g.kernel.fresh("k");
  ir::StmtList load;
  for (const auto& [b, regs] : registers)
    load.push_back(copy(tile2(b, plus(times(n.bm, g.s.tile, ix), row_of(k_load)), plus(times(n.bn, g.s.tile, ix), col0),
                              p.chunk, p.chunk),
                        tile2(regs, ir::var(k_load, ix), num(0, ix), 0, p.chunk)));
  out.push_back(unrolled(k_load, p.rows, inside(k_load, std::move(load))));
  const std::string k = g.kernel.fresh("k"), e = g.kernel.fresh("e");
  const ir::ExprRef col = plus(col0, ir::convert(ir::var(e), ix));
  Rewrite rw = g.base;
  rw.i = plus(times(n.bm, g.s.tile, ix), row_of(k));
  rw.j = plus(times(n.bn, g.s.tile, ix), col);
  for (const auto& [b, regs] : registers) {
    const DType t = g.kernel.buffers[static_cast<std::size_t>(b)].dtype;
    const int r = regs;
    rw.reads[b] = [r, t, k, e](const ir::ExprRef&) { return ir::element(r, t, nullptr, {ir::var(k), ir::var(e)}); };
  }
  rw.write = ir::element(g.tile, g.out, nullptr, {row_of(k), col});
  ir::StmtList body;
  body.push_back(unrolled(e, p.chunk, rewrite_body(g.body, rw)));
  out.push_back(unrolled(k, p.rows, inside(k, std::move(body))));
  return out;
}

// One of the items a thread is dealt of the block's rows (window_slots):
// its lets (the row of x, or of y when storing; the start `fs` of the
// block's piece of it in the tensor's flat storage; the item's first
// element `f0`), the condition that the item is needed, and its slot among
// the thread's items (the pass that dealt it).
struct WindowSlot {
  ir::ExprRef row, fs, f0, exists, slot;
};

// The piece [fs, fs + T) of a row is covered by the T / C + 1 aligned
// chunks from fs - fs % C (the last one unused where fs is a whole chunk).
std::int64_t window_width(const Shape& s, const Phase& p) { return s.tile / p.chunk + 1; }

// What window_slots deals: `width` items of each row, item q starting at
// `first(fs, q)`; `within_piece`: only items that start before fs + T.
struct Deal {
  std::int64_t width = 0;
  std::function<ir::ExprRef(const ir::ExprRef& fs, const ir::ExprRef& q)> first;
  bool within_piece = false;
};

std::int64_t passes_of(const Shape& s, std::int64_t width) { return (s.tile * width + s.threads - 1) / s.threads; }

// The items of the block's T rows (of x, or of y when `store`), numbered
// row by row, are dealt to its threads in turn: pass k gives thread t item
// k * threads + t, so every pass but the last moves a full block of items,
// and the last whole warps (T is a multiple of 32). Dealing each thread
// its rows' window chunks instead (T / C threads a row, one of them the
// extra chunk) spent a second pass of every instruction on 1/16 of them.
// For each of the thread's items: the slot's lets, then `body` where the
// item is needed.
ir::StmtPtr window_slots(Kernel2& g, const Names& n, bool bounded, bool store, const Deal& deal,
                         const std::function<ir::StmtList(const WindowSlot&)>& body) {
  const ir::Type& ix = n.index;
  const std::int64_t items = g.s.tile * deal.width;
  const std::string k = g.kernel.fresh("pass"), at = g.kernel.fresh("dealt");
  const std::string row = g.kernel.fresh(store ? "y_row" : "x_row"), fs = g.kernel.fresh("piece"),
                    f0 = g.kernel.fresh("first");
  WindowSlot sl;
  sl.row = ir::var(row, ix);
  sl.fs = ir::var(fs, ix);
  sl.f0 = ir::var(f0, ix);
  const ir::ExprRef at_var = ir::var(at, ix);
  // Rows of x go down the block's row tile (bm), rows of y down its column tile (bn).
  const ir::ExprRef row_tile = store ? n.bn : n.bm, col_tile = store ? n.bm : n.bn;
  const std::int64_t row_length = store ? g.s.m : g.s.n, rows = store ? g.s.n : g.s.m;
  ir::StmtList inner;
  inner.push_back(ir::make_stmt(ir::Let{at, ix, true, plus(times(ir::var(k, ix), g.s.threads, ix), n.tid)}));
  inner.push_back(ir::make_stmt(
      ir::Let{row, ix, true, plus(times(row_tile, g.s.tile, ix), ir::binary("/", at_var, num(deal.width, ix)))}));
  inner.push_back(ir::make_stmt(ir::Let{fs, ix, true, plus(times(sl.row, row_length, ix), times(col_tile, g.s.tile, ix))}));
  inner.push_back(ir::make_stmt(ir::Let{f0, ix, true, deal.first(sl.fs, ir::binary("%", at_var, num(deal.width, ix)))}));
  sl.exists = nullptr;
  if (deal.within_piece) sl.exists = ir::less(sl.f0, plus(sl.fs, num(g.s.tile, ix)));
  auto also = [&](ir::ExprRef c) { sl.exists = sl.exists ? ir::all_of(std::move(c), sl.exists) : std::move(c); };
  if (items % g.s.threads) also(ir::less(at_var, num(items, ix)));
  if (bounded) also(ir::less(sl.row, num(rows, ix)));
  sl.slot = ir::convert(ir::var(k), ix);
  if (sl.exists) inner.push_back(ir::make_stmt(ir::If{sl.exists, seq(body(sl)), nullptr}));
  else for (auto& st : body(sl)) inner.push_back(std::move(st));
  return unrolled(k, passes_of(g.s, deal.width), std::move(inner));
}

// Chunk q of the window of the piece from fs: (fs - fs % C) + q * C, the
// window's chunks from chunk `from`.
Deal window_chunks(const Phase& p, const ir::Type& ix, std::int64_t width, std::int64_t from) {
  Deal d;
  d.width = width;
  const std::int64_t c = p.chunk;
  d.first = [c, from, ix](const ir::ExprRef& fs, const ir::ExprRef& q) {
    return plus(times(ir::binary("/", fs, num(c, ix)), c, ix), times(from ? plus(q, num(from, ix)) : q, c, ix));
  };
  return d;
}

// The first thread level through windows of x's flat storage (rows that
// start off a chunk, a base aligned to one): the piece [fs, fs + T) of
// each of the block's rows is covered by the aligned chunks of its window;
// each thread loads its chunks (window_slots), as one vector where one lies
// inside the tensor, and runs the element body on the elements of the
// piece. All of a thread's chunks are loaded before the first is used.
ir::StmtList load_window(Kernel2& g, const Names& n, const Phase& p, bool bounded) {
  const ir::Type& ix = n.index;
  const std::int64_t total = g.s.m * g.s.n;
  ir::StmtList out;
  std::map<int, std::pair<int, int>> registers;  // read buffer: (its flat view, its registers)
  for (int b : g.plan.read) {
    const ir::Buffer& src = g.kernel.buffers[static_cast<std::size_t>(b)];
    const std::string name = flat::base_name(src.name) + "_window";
    const DType dtype = src.dtype;
    const int view = flat::flat_view(g.kernel, b, total);
    // One-dimensional, as the flat view it is copied from.
    const int regs = flat::local_registers(g.kernel, name, dtype, {ir::Extent{passes_of(g.s, window_width(g.s, p)) * p.chunk, ""}}, p.chunk);
    registers[b] = {view, regs};
    out.push_back(ir::make_stmt(ir::DeclareLocal{regs}));
  }
  Deal deal = window_chunks(p, ix, window_width(g.s, p), 0);
  deal.within_piece = true;
  auto per_slot = [&](const std::function<ir::StmtList(const WindowSlot&)>& body) {
    return window_slots(g, n, bounded, false, deal, body);
  };
  // The loads: a vector where the chunk lies inside the tensor, else its elements inside.
  out.push_back(per_slot([&](const WindowSlot& sl) {
    ir::StmtList whole, part;
    const std::string e = g.kernel.fresh("e");
    for (const auto& [b, vr] : registers) {
      ir::Tile src;
      src.buffer = vr.first;
      src.origin = {sl.f0};
      src.origin_multiple = {p.chunk};
      src.extent = {p.chunk};
      ir::Tile dst = src;
      dst.buffer = vr.second;
      dst.origin = {times(sl.slot, p.chunk, ix)};
      whole.push_back(copy(src, dst));
      const DType t = g.kernel.buffers[static_cast<std::size_t>(b)].dtype;
      const ir::ExprRef f = plus(sl.f0, ir::convert(ir::var(e), ix));
      ir::StmtList one;
      one.push_back(ir::make_stmt(ir::Assign{ir::element(vr.second, t, nullptr, {plus(times(sl.slot, p.chunk, ix), ir::convert(ir::var(e), ix))}), "=",
                                             ir::element(vr.first, t, nullptr, {f}), nullptr}));
      ir::StmtList guarded;
      guarded.push_back(ir::make_stmt(ir::If{ir::less(f, num(total, ix)), seq(std::move(one)), nullptr}));
      part.push_back(unrolled(e, p.chunk, std::move(guarded)));
    }
    ir::StmtList out;
    out.push_back(ir::make_stmt(ir::If{ir::binary("<=", plus(sl.f0, num(p.chunk, ix)), num(total, ix)),
                                       seq(std::move(whole)), seq(std::move(part))}));
    return out;
  }));
  // The element body on each element of the piece, into the tile.
  out.push_back(per_slot([&](const WindowSlot& sl) {
    const std::string e = g.kernel.fresh("e"), col = g.kernel.fresh("col");
    const ir::ExprRef col_var = ir::var(col, ix);
    Rewrite rw = g.base;
    rw.i = sl.row;
    rw.j = plus(times(n.bn, g.s.tile, ix), col_var);
    for (const auto& [b, vr] : registers) {
      const DType t = g.kernel.buffers[static_cast<std::size_t>(b)].dtype;
      const int r = vr.second;
      const ir::ExprRef slot = sl.slot;
      const ir::ExprRef at = plus(times(slot, p.chunk, ix), ir::convert(ir::var(e), ix));
      rw.reads[b] = [r, t, at](const ir::ExprRef&) { return ir::element(r, t, nullptr, {at}); };
    }
    rw.write = ir::element(g.tile, g.out, nullptr, {ir::binary("-", sl.row, times(n.bm, g.s.tile, ix)), col_var});
    ir::ExprRef in_piece = ir::all_of(ir::binary(">=", col_var, num(0, ix)), ir::less(col_var, num(g.s.tile, ix)));
    if (bounded) in_piece = ir::all_of(in_piece, ir::less(rw.j, num(g.s.n, ix)));
    ir::StmtList element;
    element.push_back(ir::make_stmt(ir::Let{col, ix, true, ir::binary("-", plus(sl.f0, ir::convert(ir::var(e), ix)), sl.fs)}));
    element.push_back(ir::make_stmt(ir::If{in_piece, seq(rewrite_body(g.body, rw)), nullptr}));
    ir::StmtList out;
    out.push_back(unrolled(e, p.chunk, std::move(element)));
    return out;
  }));
  return out;
}

// The first thread level element by element (rows of x that do not start
// on whole chunks); `bounded`: each inside the bounds.
ir::StmtList load_elements(Kernel2& g, const Names& n, const Phase& p, bool bounded) {
  const ir::Type& ix = n.index;
  const std::string k = g.kernel.fresh("k"), e = g.kernel.fresh("e");
  const ir::ExprRef row = plus(times(ir::var(k, ix), p.down, ix), n.r);
  const ir::ExprRef col = plus(times(n.c, p.chunk, ix), ir::convert(ir::var(e), ix));
  Rewrite rw = g.base;
  rw.i = ir::var(rw.i_name, ix);
  rw.j = ir::var(rw.j_name, ix);
  rw.write = ir::element(g.tile, g.out, nullptr, {row, col});
  ir::StmtList element;
  element.push_back(ir::make_stmt(ir::Let{rw.i_name, ix, true, plus(times(n.bm, g.s.tile, ix), row)}));
  element.push_back(ir::make_stmt(ir::Let{rw.j_name, ix, true, plus(times(n.bn, g.s.tile, ix), col)}));
  Rewrite inner = rw;
  inner.i_name.clear();  // the body's own index lets are dropped: the lets above replace them
  inner.j_name.clear();
  ir::StmtList kept;
  for (const ir::StmtPtr& st : g.body) {
    const auto* let = std::get_if<ir::Let>(&st->node);
    if (let && (let->name == rw.i_name || let->name == rw.j_name)) continue;
    kept.push_back(rewrite_stmt(*st, inner));
  }
  for (auto& st : within(bounded, ir::var(rw.i_name, ix), g.s.m, ir::var(rw.j_name, ix), g.s.n, std::move(kept), ix))
    element.push_back(std::move(st));
  return element_loops(k, e, p, std::move(element));
}

// The second thread level in chunks: a column of the tile gathered into
// registers, stored to a row of y as one chunk; `bounded`: the chunks inside.
ir::StmtList store_chunks(Kernel2& g, const Names& n, const Phase& p, bool bounded) {
  const ir::Type& ix = n.index;
  const int column = flat::local_registers(g.kernel, "column", g.out, {ir::Extent{1, ""}, ir::Extent{p.chunk, ""}}, p.chunk);
  const std::string k = g.kernel.fresh("k"), e = g.kernel.fresh("e");
  const ir::ExprRef row = plus(times(ir::var(k, ix), p.down, ix), n.r);
  const ir::ExprRef col0 = times(n.c, p.chunk, ix);
  ir::StmtList gather;
  gather.push_back(ir::make_stmt(ir::Assign{ir::element(column, g.out, nullptr, {ir::int_const(0), ir::var(e)}), "=",
                                            ir::element(g.tile, g.out, nullptr, {plus(col0, ir::convert(ir::var(e), ix)), row}),
                                            nullptr}));
  ir::StmtList per_row;
  per_row.push_back(unrolled(e, p.chunk, std::move(gather)));
  per_row.push_back(copy(tile2(column, num(0, ix), num(0, ix), 0, p.chunk),
                         tile2(g.base.y, plus(times(n.bn, g.s.tile, ix), row), plus(times(n.bm, g.s.tile, ix), col0),
                               p.chunk, p.chunk)));
  ir::StmtList out;
  out.push_back(ir::make_stmt(ir::DeclareLocal{column}));
  out.push_back(unrolled(k, p.rows,
                         within(bounded, plus(times(n.bn, g.s.tile, ix), row), g.s.n,
                                plus(times(n.bm, g.s.tile, ix), col0), g.s.m, std::move(per_row), ix)));
  return out;
}

// The second thread level through windows of y's flat storage (rows of y
// that start off a chunk, a base aligned to one). Of the aligned chunks
// covering the piece [fs, fs + T) of a row of y, chunks 1 to T / C - 1 of
// its window lie inside it: dealt over the block (window_slots), each is
// gathered from a column of the tile and stored as one vector. The rest of
// the piece is C elements, [fs, a + C) and [a + T, fs + T) for a = fs - fs %
// C, dealt one element a thread: where one pass took both kinds of chunk, a
// warp holding both ran both paths.
ir::StmtList store_window(Kernel2& g, const Names& n, const Phase& p, bool bounded) {
  const ir::Type& ix = n.index;
  const std::int64_t c = p.chunk, tile = g.s.tile;
  const int flat_y = flat::flat_view(g.kernel, g.base.y, g.s.m * g.s.n);
  const int column = flat::local_registers(g.kernel, "column", g.out, {ir::Extent{c, ""}}, c);
  // The piece ends T elements on, or at the end of y's row in a tile past M.
  auto piece_end = [&](const WindowSlot& sl) {
    ir::ExprRef end = plus(sl.fs, num(tile, ix));
    const ir::ExprRef row_end = times(plus(sl.row, num(1, ix)), g.s.m, ix);
    return ir::select(ir::less(end, row_end), end, row_end);
  };
  auto from_tile = [&](const WindowSlot& sl, const ir::ExprRef& f) {
    return ir::element(g.tile, g.out, nullptr, {ir::binary("-", f, sl.fs), ir::binary("-", sl.row, times(n.bn, tile, ix))});
  };
  ir::StmtList out;
  out.push_back(ir::make_stmt(ir::DeclareLocal{column}));
  out.push_back(window_slots(g, n, bounded, true, window_chunks(p, ix, tile / c - 1, 1), [&](const WindowSlot& sl) {
    const std::string e = g.kernel.fresh("e");
    const ir::ExprRef f = plus(sl.f0, ir::convert(ir::var(e), ix));
    ir::StmtList gather;
    gather.push_back(ir::make_stmt(ir::Assign{ir::element(column, g.out, nullptr, {ir::var(e)}), "=", from_tile(sl, f), nullptr}));
    ir::Tile src, dst;
    src.buffer = column;
    src.origin = {num(0, ix)};
    src.origin_multiple = {0};
    src.extent = {c};
    dst = src;
    dst.buffer = flat_y;
    dst.origin = {sl.f0};
    dst.origin_multiple = {c};
    ir::StmtList whole;
    whole.push_back(unrolled(e, c, std::move(gather)));
    whole.push_back(copy(src, dst));
    if (!bounded) return whole;
    // A tile past M: the piece may end inside the chunk, or before it.
    const std::string end = g.kernel.fresh("piece_end");
    ir::StmtList one;
    one.push_back(ir::make_stmt(ir::Assign{ir::element(flat_y, g.out, nullptr, {f}), "=", from_tile(sl, f), nullptr}));
    ir::StmtList inside;
    inside.push_back(ir::make_stmt(ir::If{ir::less(f, ir::var(end, ix)), seq(std::move(one)), nullptr}));
    ir::StmtList part;
    part.push_back(unrolled(e, c, std::move(inside)));
    ir::StmtList body;
    body.push_back(ir::make_stmt(ir::Let{end, ix, true, piece_end(sl)}));
    body.push_back(ir::make_stmt(ir::If{ir::binary("<=", plus(sl.f0, num(c, ix)), ir::var(end, ix)), seq(std::move(whole)),
                                        seq(std::move(part))}));
    return body;
  }));
  // The piece's ends: element q of C is fs + q, past the head (C - fs % C
  // elements) T - C further on.
  Deal ends;
  ends.width = c;
  ends.first = [c, tile, ix](const ir::ExprRef& fs, const ir::ExprRef& q) {
    const ir::ExprRef past_head = ir::binary(">=", plus(q, ir::binary("%", fs, num(c, ix))), num(c, ix));
    return plus(plus(fs, q), ir::select(past_head, num(tile - c, ix), num(0, ix)));
  };
  out.push_back(window_slots(g, n, bounded, true, ends, [&](const WindowSlot& sl) {
    ir::StmtList one;
    one.push_back(ir::make_stmt(ir::Assign{ir::element(flat_y, g.out, nullptr, {sl.f0}), "=", from_tile(sl, sl.f0), nullptr}));
    if (!bounded) return one;
    ir::StmtList body;
    body.push_back(ir::make_stmt(ir::If{ir::less(sl.f0, piece_end(sl)), seq(std::move(one)), nullptr}));
    return body;
  }));
  return out;
}

// The second thread level element by element; `bounded`: each inside the bounds.
ir::StmtList store_elements(Kernel2& g, const Names& n, const Phase& p, bool bounded) {
  const ir::Type& ix = n.index;
  const std::string k = g.kernel.fresh("k"), e = g.kernel.fresh("e");
  const std::string yr = g.kernel.fresh("y_row"), yc = g.kernel.fresh("y_col");
  const ir::ExprRef row = plus(times(ir::var(k, ix), p.down, ix), n.r);
  const ir::ExprRef col = plus(times(n.c, p.chunk, ix), ir::convert(ir::var(e), ix));
  ir::StmtList element;
  element.push_back(ir::make_stmt(ir::Let{yr, ix, true, plus(times(n.bn, g.s.tile, ix), row)}));
  element.push_back(ir::make_stmt(ir::Let{yc, ix, true, plus(times(n.bm, g.s.tile, ix), col)}));
  ir::StmtList store;
  store.push_back(ir::make_stmt(ir::Assign{ir::element(g.base.y, g.out, nullptr, {ir::var(yr, ix), ir::var(yc, ix)}), "=",
                                           ir::element(g.tile, g.out, nullptr, {col, row}), nullptr}));
  for (auto& st : within(bounded, ir::var(yr, ix), g.s.n, ir::var(yc, ix), g.s.m, std::move(store), ix))
    element.push_back(std::move(st));
  return element_loops(k, e, p, std::move(element));
}

// Whether the body's only mentions of `lin` are the lets of the two indices.
bool lin_only_in_index_lets(const ir::StmtList& body, const flat::Plan& plan, const Rewrite& rw) {
  for (const ir::StmtPtr& st : body) {
    if (const auto* let = std::get_if<ir::Let>(&st->node)) {
      if (let->name == rw.i_name || let->name == rw.j_name) continue;
      if (flat::mentions(let->init, plan.lin)) return false;
    } else if (const auto* a = std::get_if<ir::Assign>(&st->node)) {
      if (flat::mentions(a->value, plan.lin) || flat::mentions(a->guard, plan.lin) || flat::mentions(a->target, plan.lin))
        return false;
    } else if (const auto* f = std::get_if<ir::If>(&st->node)) {
      if (flat::mentions(f->condition, plan.lin)) return false;
      for (const ir::StmtPtr* b : {&f->then_branch, &f->else_branch})
        if (*b && !lin_only_in_index_lets(std::get<ir::Seq>((*b)->node).body, plan, rw)) return false;
    }
  }
  return true;
}

bool tile_region(ir::Kernel& kernel, ir::Region& region) {
  flat::Plan plan;
  plan.allow_transposed = true;
  std::optional<flat::Body> taken = flat::take_body(kernel, region, plan);
  if (!taken) return false;
  if (!flat::body_ok(kernel, plan, taken->body, false) || !plan.written.empty() || plan.transposed.size() != 1 ||
      plan.read.count(*plan.transposed.begin())) {
    taken->give_back();
    return false;
  }
  Rewrite base;
  base.y = *plan.transposed.begin();
  for (const auto& [name, index] : plan.indices) {
    if (name == plan.lin) continue;
    if (index.divisor == 1 && index.modulus == plan.cols) base.j_name = name;
    else if (index.divisor == plan.cols) base.i_name = name;
  }
  std::optional<Shape> s = shape_for(kernel, plan);
  bool reads_level_shaped = true;
  for (int b : plan.read) {
    const auto& dims = kernel.buffers[static_cast<std::size_t>(b)].dims;
    reads_level_shaped = reads_level_shaped && dims.size() == 2 && dims[0].value == plan.rows && dims[1].value == plan.cols;
  }
  if (!s || base.i_name.empty() || base.j_name.empty() || !reads_level_shaped ||
      !lin_only_in_index_lets(taken->body, plan, base)) {
    taken->give_back();
    return false;
  }

  Kernel2 g{kernel, plan, *s, taken->body, base};
  g.out = kernel.buffers[static_cast<std::size_t>(base.y)].dtype;
  ir::Buffer tile;
  tile.name = kernel.fresh("tile");
  tile.dtype = g.out;
  // The row padding whose bank pattern the model (transpose_banks.hpp)
  // finds cheapest: one word for whole chunks on both sides.
  const transpose::TilePattern banks{s->tile, s->threads, static_cast<std::int64_t>(dtype_size(g.out)),
                                     {s->load.chunk, s->load.window, s->n}, {s->store.chunk, s->store.window, s->m}};
  const std::int64_t pad = padding_forced(banks).value_or(transpose::best_padding(banks));
  tile.dims = {ir::Extent{s->tile, ""}, ir::Extent{s->tile + pad, ""}};
  tile.space = ir::Space::shared;
  tile.align_bytes = 128;
  tile.swizzle = 0;
  g.tile = static_cast<int>(kernel.buffers.size());
  kernel.buffers.push_back(tile);

  Names n;
  n.index = taken->lin_let->type;
  const std::int64_t tiles_m = (s->m + s->tile - 1) / s->tile, tiles_n = (s->n + s->tile - 1) / s->tile;
  // Consecutive blocks take consecutive row tiles of x, so the blocks that
  // write neighbouring pieces of a row of y run together and the 128-byte
  // lines they share (rows of y need not start on one) are whole in L2
  // before they go to memory: on an H200 this order moved whole tiles from
  // 0.945 to 0.970 of a copy's bandwidth, and rows of y 16 bytes off a
  // line from 0.74 to 0.87.
  const std::string blk = kernel.fresh("block"), bm = kernel.fresh("bm"), bn = kernel.fresh("bn");
  n.bm = ir::var(bm, n.index);
  n.bn = ir::var(bn, n.index);
  // Whole tiles: every block when the tile divides M and N, else those below the edges.
  ir::ExprRef whole;
  if (s->m % s->tile || s->n % s->tile)
    whole = ir::all_of(ir::less(n.bm, num(s->m / s->tile, n.index)), ir::less(n.bn, num(s->n / s->tile, n.index)));

  ir::StmtList grid;
  for (std::size_t i = 0; i < taken->at; ++i) grid.push_back(std::move((*taken->top)[i]));
  grid.push_back(ir::make_stmt(ir::Comment{"transposed through shared " + std::to_string(s->tile) + " x " +
                                           std::to_string(s->tile) + " tiles: loads of " +
                                           std::to_string(s->load.chunk) + (s->load.window ? " (windows)" : "") +
                                           ", stores of " + std::to_string(s->store.chunk) +
                                           (s->store.window ? " (windows)" : "") + " elements"}));
  grid.push_back(ir::make_stmt(ir::Let{blk, n.index, true, ir::special("blockIdx.x")}));
  grid.push_back(ir::make_stmt(ir::Let{bm, n.index, true, ir::binary("%", ir::var(blk, n.index), num(tiles_m, n.index))}));
  grid.push_back(ir::make_stmt(ir::Let{bn, n.index, true, ir::binary("/", ir::var(blk, n.index), num(tiles_m, n.index))}));
  grid.push_back(ir::make_stmt(ir::AllocShared{g.tile}));
  for (bool store : {false, true}) {
    const Phase& p = store ? s->store : s->load;
    ir::StmtList level = thread_lets(kernel, p, n, store);
    auto part = [&](bool bounded) {
      if (p.chunk == 1) return store ? store_elements(g, n, p, bounded) : load_elements(g, n, p, bounded);
      if (p.window) return store ? store_window(g, n, p, bounded) : load_window(g, n, p, bounded);
      return store ? store_chunks(g, n, p, bounded) : load_chunks(g, n, p, bounded);
    };
    branch(level, whole, part(false), whole ? part(true) : ir::StmtList{});
    grid.push_back(region_of(ir::Mapping::threads, std::move(level)));
  }
  region.mapping = ir::Mapping::grid;
  region.body = seq(std::move(grid));
  kernel.grid = tiles_m * tiles_n;
  kernel.block_threads = s->threads;
  return true;
}

}  // namespace

void tile_transposes(ir::Kernel& kernel) {
  if (ir::Region* region = flat::only_flat_region(kernel)) tile_region(kernel, *region);
}

}  // namespace croq::passes
