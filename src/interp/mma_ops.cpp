// MMA as tile multiplies: an accumulator lives in its threads' registers in
// the fragment layout the device uses (so `apply` and register fragments
// read the same values), and each operation on it is a collective of its
// warpgroup (WGMMA) or warp (mma.sync): the last thread to arrive runs it
// for all. WGMMA groups stay in flight until an mma.wait retires them,
// which is what the overwrite check sees.
#include <algorithm>
#include <cmath>

#include "interp/executor.hpp"
#include "interp/values.hpp"

namespace croq::interp {

namespace {

// Register i of thread `tid` of a [64, n] WGMMA accumulator (or fragment).
std::pair<std::int64_t, std::int64_t> wgmma_position(std::int64_t tid, std::int64_t i) {
  const std::int64_t w = (tid % 128) / 32, l = tid % 32;
  return {w * 16 + l / 4 + 8 * ((i / 2) % 2), (i / 4) * 8 + (l % 4) * 2 + (i % 2)};
}

// Register i of a warp accumulator: m16n8 blocks, row-major, 4 registers each.
std::pair<std::int64_t, std::int64_t> warp_position(std::int64_t tid, std::int64_t i, std::int64_t n) {
  const std::int64_t l = tid % 32, blocks_n = (n + 7) / 8, block = i / 4, k = i % 4;
  return {(block / blocks_n) * 16 + l / 4 + 8 * (k / 2), (block % blocks_n) * 8 + (l % 4) * 2 + k % 2};
}

std::int64_t registers_per_thread(const ir::Accumulator& acc) {
  if (acc.warp) return (acc.rows + 15) / 16 * ((acc.n + 7) / 8) * 4;
  return acc.n / 2;
}

double rounded(DType t, double v) {
  std::byte bytes[8];
  store_double(t, bytes, v);
  return load_double(t, bytes);
}

// An accumulator's registers hold f32 (f32 and f16 accumulators) or s32,
// as the device's do: s32 sums stay exact past 2^24.
DType register_type(const ir::Accumulator& acc) { return acc.dtype == DType::s32 ? DType::s32 : DType::f32; }

double read_register(const ir::Accumulator& acc, const Storage& s, std::int64_t i) {
  return load_double(register_type(acc), s.data + static_cast<std::size_t>(i) * 4);
}

void write_register(const ir::Accumulator& acc, Storage& s, std::int64_t i, double v) {
  store_double(register_type(acc), s.data + static_cast<std::size_t>(i) * 4, rounded(acc.dtype, v));
}

}  // namespace

Storage& Executor::accumulator_registers(Thread& t, int accumulator, std::int64_t index) {
  auto& slot = t.accumulators[{accumulator, index}];
  if (!slot) {
    const ir::Accumulator& acc = kernel().accumulators[static_cast<std::size_t>(accumulator)];
    slot = std::make_unique<Storage>();
    slot->name = acc.name;
    slot->space = ir::Space::local;
    slot->owned.assign(static_cast<std::size_t>(registers_per_thread(acc)) * sizeof(float), std::byte{0});
    slot->data = slot->owned.data();
    slot->bytes = slot->owned.size();
  }
  return *slot;
}

namespace {

// The threads an accumulator's operations gather: its warpgroup or warp.
struct Group {
  std::int64_t first = 0, size = 128;
  std::string key;
};

Group group_of(const ir::Accumulator& acc, std::int64_t tid) {
  Group g;
  g.size = acc.warp ? 32 : 128;
  g.first = tid / g.size * g.size;
  g.key = (acc.warp ? "warp " : "warpgroup ") + std::to_string(tid / g.size);
  return g;
}

}  // namespace

// Each register of each thread of `g`: f(thread, register index, row, col).
template <typename F>
void for_registers(Executor& x, const Block& b, const ir::Accumulator& acc, std::int64_t first, std::int64_t size,
                   F f) {
  const std::int64_t per = registers_per_thread(acc);
  for (std::int64_t tid = first; tid < first + size && tid < x.launch().threads; ++tid)
    for (std::int64_t i = 0; i < per; ++i) {
      auto [r, c] = acc.warp ? warp_position(tid, i, acc.n) : wgmma_position(tid, i);
      f(x.thread_of(b, tid), i, r, c);
    }
}

void Executor::mma_fill(Thread& t, const ir::MmaFill& f, const ir::Stmt& s) {
  const ir::Accumulator& acc = kernel().accumulators[static_cast<std::size_t>(f.accumulator)];
  if (acc.n == 0) return;  // never multiplied: nothing to hold
  const ir::ExprRef& value_expr = f.op.empty() ? acc.fill : f.value;
  const double value = value_expr ? as_double(value_expr->type, eval(t, value_expr)) : 0.0;
  const std::int64_t index = f.index ? as_int(f.index->type, eval(t, f.index)) : 0;
  const Group g = group_of(acc, t.tid);
  const std::string op = f.op.empty() ? "=" : f.op;
  const int id = f.accumulator;
  const std::int64_t count = acc.array_dims.empty() ? 1 : [&] {
    std::int64_t n = 1;
    for (auto d : acc.array_dims) n *= d;
    return n;
  }();
  const Block* block = t.block;
  gather(t, g.key, g.first, g.size, &s, [=, this, &acc] {
    const std::int64_t from = f.op.empty() ? 0 : index, to = f.op.empty() ? count : index + 1;
    for (std::int64_t k = from; k < to; ++k)
      for_registers(*this, *block, acc, g.first, g.size, [&](Thread& th, std::int64_t i, std::int64_t, std::int64_t) {
        Storage& regs = accumulator_registers(th, id, k);
        double v = read_register(acc, regs, i);
        if (op == "=") v = value;
        else if (op == "+=") v += value;
        else if (op == "-=") v -= value;
        else if (op == "*=") v *= value;
        else if (op == "/=") v /= value;
        write_register(acc, regs, i, v);
      });
  });
}

namespace {

// The d0 x d1 row-major `v` as d1 x d0 (and the extents swapped).
std::vector<double> transposed(const std::vector<double>& v, std::int64_t& d0, std::int64_t& d1) {
  std::vector<double> out(v.size());
  for (std::int64_t i = 0; i < d0; ++i)
    for (std::int64_t j = 0; j < d1; ++j) out[static_cast<std::size_t>(j * d0 + i)] = v[static_cast<std::size_t>(i * d1 + j)];
  std::swap(d0, d1);
  return out;
}

}  // namespace

void Executor::mma(Thread& t, const ir::Mma& m, const ir::Stmt& s) {
  const ir::Accumulator& acc = kernel().accumulators[static_cast<std::size_t>(m.accumulator)];
  const int line = m.where.line > 0 ? m.where.line : t.line;
  const std::int64_t index = m.index ? as_int(m.index->type, eval(t, m.index)) : 0;
  const Group g = group_of(acc, t.tid);
  gather(t, g.key, g.first, g.size, &s, [&, index, g, line] {
    Thread& me = t;
    const std::int64_t rows = acc.warp ? acc.rows : 64, n = acc.n;
    MmaGroup group;
    group.line = line;
    // A tile's values, and (shared operands) the bytes the group reads.
    auto read_tile = [&](const ir::MmaOperand& op, std::vector<double>& out, std::int64_t& d0, std::int64_t& d1) {
      const ir::Tile& tile = op.tile;
      d0 = tile.extent.at(0);
      d1 = tile.extent.size() > 1 ? tile.extent[1] : 1;
      Value slot;
      if (tile.slot) slot = eval(me, tile.slot);
      std::vector<std::int64_t> origin;
      for (const auto& o : tile.origin) origin.push_back(as_int(o->type, eval(me, o)));
      out.assign(static_cast<std::size_t>(d0 * d1), 0.0);
      // A gathered global tail tile: the elements past the tensor's edge read 0.
      const std::int64_t rows = op.rows ? as_int(op.rows->type, eval(me, op.rows)) : d0;
      const std::int64_t cols = op.cols ? as_int(op.cols->type, eval(me, op.cols)) : d1;
      std::size_t lo = SIZE_MAX, hi = 0;
      Storage* storage = nullptr;
      for (std::int64_t i = 0; i < std::min(d0, rows); ++i)
        for (std::int64_t j = 0; j < std::min(d1, cols); ++j) {
          std::vector<std::int64_t> c = {origin[0] + i, origin.size() > 1 ? origin[1] + j : j};
          const Address a = element_address(me, tile.buffer, tile.slot ? &slot : nullptr, c, false);
          out[static_cast<std::size_t>(i * d1 + j)] = as_double(ir::Type::element(a.dtype), read(me, a));
          storage = a.storage;
          lo = std::min(lo, a.offset);
          hi = std::max(hi, a.offset + dtype_size(a.dtype));
        }
      if (storage && storage->space == ir::Space::shared) group.reads.push_back({storage, lo, hi});
      if (storage && storage->space == ir::Space::local) same_local_tile(me, g.first, g.size, tile, origin, out, line);
    };
    std::vector<double> a, b;
    std::int64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    if (m.a_fragment >= 0) {  // RS mode: A from the threads' fragment registers
      const ir::Buffer& frag = kernel().buffers[static_cast<std::size_t>(m.a_fragment)];
      a0 = rows;
      a1 = frag.fragment.size() > 1 ? frag.fragment[1] : m.k;
      a.assign(static_cast<std::size_t>(a0 * a1), 0.0);
      for (std::int64_t tid = g.first; tid < g.first + g.size; ++tid) {
        Thread& th = thread_of(*me.block, tid);
        auto it = th.locals.find(m.a_fragment);
        if (it == th.locals.end()) fault(line, "internal error: fragment `" + frag.name + "` has no registers");
        for (std::int64_t i = 0; i < a1 / 2; ++i) {
          auto [r, c] = wgmma_position(tid, i);
          a[static_cast<std::size_t>(r * a1 + c)] =
              load_double(frag.dtype, it->second->data + static_cast<std::size_t>(i) * dtype_size(frag.dtype));
        }
      }
    } else {
      read_tile(m.a, a, a0, a1);
    }
    if (m.metadata) a = sparse_dense(me, m, a, a0, a1, line);  // 2:4: k / 2 packed values per row
    if (m.a_m_major) a = transposed(a, a0, a1);                  // col.*: a was read as [K, M]
    read_tile(m.b, b, b0, b1);
    const std::int64_t k = a1;
    if (a0 != rows || (m.b_n_major ? b0 != k || b1 != n : b0 != n || b1 != k))
      fault(line, "internal error: mma operand tiles [" + std::to_string(a0) + ", " + std::to_string(a1) + "] x [" +
                      std::to_string(b0) + ", " + std::to_string(b1) + "] do not fit the " + std::to_string(rows) +
                      " x " + std::to_string(n) + " accumulator");
    const bool tf32 = m.input == DType::tf32;
    auto in = [&](double v) { return tf32 ? rounded(DType::tf32, v) : v; };
    for_registers(*this, *t.block, acc, g.first, g.size, [&](Thread& th, std::int64_t i, std::int64_t r, std::int64_t c) {
      Storage& regs = accumulator_registers(th, m.accumulator, index);
      double sum = 0;
      for (std::int64_t x = 0; x < k; ++x)
        sum += in(a[static_cast<std::size_t>(r * k + x)]) *
               in(m.b_n_major ? b[static_cast<std::size_t>(x * n + c)] : b[static_cast<std::size_t>(c * k + x)]);
      write_register(acc, regs, i, read_register(acc, regs, i) + sum);
    });
    if (m.instruction == ir::MmaInstruction::wgmma) me.block->mma_groups[g.first / 128].push_back(std::move(group));
  });
}

// A warp's mma reads a local tile (mma.load from local memory) through
// every lane, each its own copy and its own fragment's elements: the lanes
// must hold the same values (`values`, read through `me`), else the GPU's
// product mixes their copies.
void Executor::same_local_tile(Thread& me, std::int64_t first, std::int64_t size, const ir::Tile& tile,
                               const std::vector<std::int64_t>& origin,
                               const std::vector<double>& values, int line) {
  const std::int64_t d0 = tile.extent.at(0), d1 = tile.extent.size() > 1 ? tile.extent[1] : 1;
  for (std::int64_t tid = first; tid < first + size; ++tid) {
    Thread& th = thread_of(*me.block, tid);
    if (&th == &me) continue;
    Value slot;
    if (tile.slot) slot = eval(th, tile.slot);
    for (std::int64_t i = 0; i < d0; ++i)
      for (std::int64_t j = 0; j < d1; ++j) {
        std::vector<std::int64_t> c = {origin[0] + i, origin.size() > 1 ? origin[1] + j : j};
        const Address a = element_address(th, tile.buffer, tile.slot ? &slot : nullptr, c, false);
        const double v = as_double(ir::Type::element(a.dtype), read(th, a));
        const double want = values[static_cast<std::size_t>(i * d1 + j)];
        if (v != want && !(std::isnan(v) && std::isnan(want)))
          fault(line, "the lanes of a warp hold different values in the local tile `" +
                          shown_name(kernel().buffers[static_cast<std::size_t>(tile.buffer)].name) +
                          "` that its mma reads: row " + std::to_string(i) + ", column " + std::to_string(j) + " is " +
                          std::to_string(want) + " in thread " + std::to_string(me.tid) + " but " + std::to_string(v) +
                          " in thread " + std::to_string(tid) + " (each lane reads its own copy)");
      }
  }
}

// The dense [rows, 2 * packed_k] lhs of a 2:4 sparse multiply: each group of
// 4 columns keeps 2 values, at the positions the metadata byte's nibble
// names (bits 0-1 the first, 2-3 the second; the low nibble for even
// groups), as include/croq/choreo_sparse.hpp encodes them.
std::vector<double> Executor::sparse_dense(Thread& t, const ir::Mma& m, const std::vector<double>& packed,
                                           std::int64_t rows, std::int64_t& packed_k, int line) {
  const Value meta = eval(t, m.metadata);
  if (meta.storage == nullptr) fault(line, "internal error: sparse metadata is not a pointer");
  const std::int64_t k = packed_k * 2;
  std::vector<double> dense(static_cast<std::size_t>(rows * k), 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t g = 0; g < k / 4; ++g) {
      const std::int64_t offset = meta.i + r * m.metadata_pitch + g / 2;
      if (offset < 0 || static_cast<std::size_t>(offset) >= meta.storage->bytes)
        fault(line, "out-of-bounds read of the sparse metadata `" + shown_name(meta.storage->name) + "`");
      if (meta.storage->space == ir::Space::shared)
        check_shared_read(t, meta.storage, static_cast<std::size_t>(offset), static_cast<std::size_t>(offset) + 1);
      const auto byte = static_cast<unsigned>(meta.storage->data[offset]);
      const unsigned code = g % 2 == 0 ? byte & 15u : byte >> 4;
      for (unsigned half = 0; half < 2; ++half) {
        const std::int64_t column = g * 4 + ((code >> (2 * half)) & 3u);
        dense[static_cast<std::size_t>(r * k + column)] += packed[static_cast<std::size_t>(r * packed_k + g * 2 + half)];
      }
    }
  packed_k = k;
  return dense;
}

void Executor::mma_wait(Thread& t, const ir::MmaWait& w) {
  auto& groups = t.block->mma_groups[t.tid / 128];
  const auto keep = static_cast<std::size_t>(std::max(w.pending, 0));
  if (groups.size() > keep) groups.erase(groups.begin(), groups.end() - static_cast<std::ptrdiff_t>(keep));
}

void Executor::mma_store(Thread& t, const ir::MmaStore& m, const ir::Stmt& s) {
  const ir::Accumulator& acc = kernel().accumulators[static_cast<std::size_t>(m.accumulator)];
  if (acc.n == 0) return;
  const Value dest = eval(t, m.destination);
  const DType dtype = m.destination->type.dtype;
  const std::int64_t leading = as_int(m.leading->type, eval(t, m.leading));
  const std::int64_t rows = m.rows ? as_int(m.rows->type, eval(t, m.rows)) : INT64_MAX;
  const std::int64_t cols = m.cols ? as_int(m.cols->type, eval(t, m.cols)) : INT64_MAX;
  const std::int64_t index = m.index ? as_int(m.index->type, eval(t, m.index)) : 0;
  const Group g = group_of(acc, t.tid);
  gather(t, g.key, g.first, g.size, &s, [=, this, &t, &acc, &m] {
    if (dest.storage == nullptr) fault(t.line, "internal error: mma.store to a non-pointer");
    const std::size_t size = dtype_size(dtype);
    for_registers(*this, *t.block, acc, g.first, g.size, [&](Thread& th, std::int64_t i, std::int64_t r, std::int64_t c) {
      // rows and cols bound the destination, which is [N, M] when transposed.
      const std::int64_t dest_r = m.transpose ? c : r, dest_c = m.transpose ? r : c;
      if (dest_r >= rows || dest_c >= cols || r >= (acc.warp ? acc.rows : 64) || c >= acc.n) return;
      const std::int64_t linear = m.transpose ? c * leading + r : r * leading + c;
      const std::int64_t offset = dest.i + linear * static_cast<std::int64_t>(size);
      if (offset < 0 || static_cast<std::size_t>(offset) + size > dest.storage->bytes)
        fault(t.line, "out-of-bounds mma.store into `" + shown_name(dest.storage->name) + "` at row " + std::to_string(r) +
                          ", column " + std::to_string(c));
      if (dest.storage->space == ir::Space::shared) {
        check_shared_write(t, dest.storage, static_cast<std::size_t>(offset), static_cast<std::size_t>(offset) + size);
        race_forget(dest.storage, static_cast<std::size_t>(offset), static_cast<std::size_t>(offset) + size);
      }
      store_double(dtype, dest.storage->data + offset, read_register(acc, accumulator_registers(th, m.accumulator, index), i));
    });
  });
}

// The warp's accumulator registers read from the tile at `source` (the
// inverse of mma_store): elements past rows or cols read 0.
void Executor::mma_load(Thread& t, const ir::MmaLoad& m, const ir::Stmt& s) {
  const ir::Accumulator& acc = kernel().accumulators[static_cast<std::size_t>(m.accumulator)];
  const Value source = eval(t, m.source);
  const DType dtype = m.source->type.dtype;
  const std::int64_t leading = as_int(m.leading->type, eval(t, m.leading));
  const std::int64_t rows = m.rows ? as_int(m.rows->type, eval(t, m.rows)) : INT64_MAX;
  const std::int64_t cols = m.cols ? as_int(m.cols->type, eval(t, m.cols)) : INT64_MAX;
  const Group g = group_of(acc, t.tid);
  gather(t, g.key, g.first, g.size, &s, [=, this, &t, &acc, &m] {
    if (source.storage == nullptr) fault(t.line, "internal error: mma.load from a non-pointer");
    const std::size_t size = dtype_size(dtype);
    for_registers(*this, *t.block, acc, g.first, g.size, [&](Thread& th, std::int64_t i, std::int64_t r, std::int64_t c) {
      Storage& regs = accumulator_registers(th, m.accumulator, 0);
      write_register(acc, regs, i, 0);
      if (r >= rows || c >= cols || r >= acc.rows || c >= acc.n) return;
      const std::int64_t offset = source.i + (r * leading + c) * static_cast<std::int64_t>(size);
      if (offset < 0 || static_cast<std::size_t>(offset) + size > source.storage->bytes)
        fault(t.line, "out-of-bounds mma.load from `" + shown_name(source.storage->name) + "` at row " + std::to_string(r) +
                          ", column " + std::to_string(c));
      if (source.storage->space == ir::Space::shared)
        check_shared_read(t, source.storage, static_cast<std::size_t>(offset), static_cast<std::size_t>(offset) + size);
      write_register(acc, regs, i, load_double(dtype, source.storage->data + offset));
    });
  });
}

// acc += partial * scale_a[row * stride] * scale_b over this thread's
// registers (rows past scale_a_rows add nothing), as the prelude's
// scale_accum: per thread, once its warpgroup's multiplies are done.
void Executor::mma_scale(Thread& t, const ir::MmaScale& m, const ir::Stmt&) {
  const ir::Accumulator& acc = kernel().accumulators[static_cast<std::size_t>(m.accumulator)];
  const Value scale_a = eval(t, m.scale_a);
  const std::int64_t stride = as_int(m.scale_a_stride->type, eval(t, m.scale_a_stride));
  const std::int64_t rows = as_int(m.scale_a_rows->type, eval(t, m.scale_a_rows));
  const double scale_b = as_double(m.scale_b->type, eval(t, m.scale_b));
  if (scale_a.storage == nullptr) fault(t.line, "internal error: mma.scale's row scales are not a pointer");
  auto* regs = reinterpret_cast<float*>(accumulator_registers(t, m.accumulator, 0).data);
  const auto* partial = reinterpret_cast<const float*>(accumulator_registers(t, m.partial, 0).data);
  for (std::int64_t i = 0; i < registers_per_thread(acc); ++i) {
    const std::int64_t r = wgmma_position(t.tid, i).first;
    double s = 0;
    if (r < rows) {
      const std::int64_t offset = scale_a.i + r * stride * static_cast<std::int64_t>(sizeof(float));
      if (offset < 0 || static_cast<std::size_t>(offset) + sizeof(float) > scale_a.storage->bytes)
        fault(t.line, "out-of-bounds read of the row scales `" + shown_name(scale_a.storage->name) + "` at row " +
                          std::to_string(r));
      s = static_cast<float>(load_double(DType::f32, scale_a.storage->data + offset) * scale_b);
    }
    regs[i] = static_cast<float>(rounded(acc.dtype, regs[i] + static_cast<double>(partial[i]) * s));
  }
}

Value Executor::quad_reduce(Thread& t, const ir::Expr& e, const Value& mine) {
  const std::int64_t quad = t.tid / 4;
  Block& b = *t.block;
  b.quad_inputs[quad][static_cast<std::size_t>(t.tid % 4)] = mine.f;
  const bool max = e.op == "quad_max";
  gather(t, "quad " + std::to_string(quad), quad * 4, 4, &e, [&b, quad, max, this] {
    double r = max ? -INFINITY : 0.0;
    for (std::int64_t lane = 0; lane < 4; ++lane) {
      if (thread_of(b, quad * 4 + lane).finished) continue;
      const double v = b.quad_inputs[quad][static_cast<std::size_t>(lane)];
      r = max ? std::fmax(r, v) : static_cast<float>(r + v);
    }
    b.quad_results[quad] = r;
  });
  return from_double(e.type, b.quad_results[quad]);
}

}  // namespace croq::interp
