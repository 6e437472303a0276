// Events, TMA and MMA operations as calls into the device prelude
// (croq_dev::..., see backend/cuda/hopper_prelude.hpp), which wraps the PTX.
#include "backend/cuda/cuda_printer.hpp"
#include "ir/builder.hpp"

namespace croq::backend::cuda {

// `f<T, N>(args)`: template arguments print as the C++ type of a typed
// zero or as a constant; a tile's element pointer passes through
// croq_device_arg (kDeviceArg), numbers as they are.
std::string Printer::device_call(const ir::Expr& e) const {
  const auto templates = static_cast<std::size_t>(e.value);
  std::string s = e.text;
  if (templates > 0) {
    s += "<";
    for (std::size_t i = 0; i < templates; ++i) {
      const ir::Expr& t = *e.operands[i];
      s += (i ? ", " : "") + (t.kind == ir::ExprKind::typed_zero ? std::string(cuda_type(t.type.dtype)) : expr(e.operands[i]));
    }
    s += ">";
  }
  s += "(";
  for (std::size_t i = templates; i < e.operands.size(); ++i) {
    const bool pointer = e.operands[i]->kind == ir::ExprKind::address_of;
    uses_device_args_ = uses_device_args_ || pointer;
    s += (i > templates ? ", " : "") + (pointer ? "croq_device_arg(" + expr(e.operands[i]) + ")" : expr(e.operands[i]));
  }
  return s + ")";
}

std::string Printer::event_slot(int event, const ir::ExprRef& index) const {
  return "&" + kernel_.events[static_cast<std::size_t>(event)].name + "[" + expr(index) + "]";
}

void Printer::barrier_prologue(const ir::BarrierPrologue& p) {
  if (p.init.empty()) {
    line("// no barriers");
    if (kernel_.cluster_shared_memory) line("croq_dev::cluster_sync();");
    return;
  }
  // Barrier initialization, once per block before any use; a barrier the
  // cluster's blocks arrive on counts each running block's arrivals.
  line("if (threadIdx.x == 0) {");
  indent();
  for (int id : p.init) {
    const ir::Event& e = kernel_.events[static_cast<std::size_t>(id)];
    std::string arrivals = e.arrivals_whole_block ? "blockDim.x" : std::to_string(e.arrivals > 0 ? e.arrivals : 1);
    if (e.cluster_arrivals) arrivals += " * (" + expr(kernel_.cluster_live) + ")";
    line("for (int i = 0; i < " + std::to_string(e.count) +
         "; ++i) croq_dev::mbar_init(reinterpret_cast<unsigned long long*>(croq_smem + " + std::to_string(e.smem_offset) +
         ") + i, " + arrivals + ");");
  }
  line("croq_dev::fence_barrier_init();");
  dedent();
  line("}");
  // Peers arrive on and multicast into this block's barriers: all of the
  // cluster's are set up before any block goes on.
  line(kernel_.cluster_shared_memory ? "croq_dev::cluster_sync();" : "__syncthreads();");
  for (int id : p.private_events) {
    const ir::Event& e = kernel_.events[static_cast<std::size_t>(id)];
    line("unsigned long long* " + e.name + " = reinterpret_cast<unsigned long long*>(croq_smem + " +
         std::to_string(e.smem_offset) + ");");
    line("unsigned " + e.phase + " = 0u;");
  }
}

void Printer::arrive(const ir::Arrive& a) {
  const std::string bar = event_slot(a.event, a.index);
  // `trigger.cluster`: the barrier at the same place in every running block.
  const std::string one =
      a.cluster ? "for (unsigned r = 0; r < (unsigned)(" + expr(kernel_.cluster_live) + "); ++r) croq_dev::mbar_arrive_cluster(" +
                      bar + ", r);"
                : "croq_dev::mbar_arrive(" + bar + ");";
  if (a.per_warp) {  // one arrival per warp: lane 0, once the warp is done
    line("__syncwarp();");
    line("if ((" + expr(a.set.tid) + " & 31) == 0) " + (a.cluster ? "{ " + one + " }" : one));
  } else {
    line(one);
  }
}

void Printer::wait_event(const ir::WaitEvent& w) {
  const ir::Event& e = kernel_.events[static_cast<std::size_t>(w.event)];
  if (w.parity) {  // e.at(order): that generation's parity, independent of the thread's phase bits
    line("croq_dev::mbar_wait(&" + e.name + "[" + expr(w.index) + "], static_cast<unsigned>(" + expr(w.parity) + "));");
    return;
  }
  if (ir::is_zero(w.index)) {
    line("croq_dev::mbar_wait(&" + e.name + "[0], " + e.phase + " & 1u);");
    line(e.phase + " ^= 1u;");
    return;
  }
  const std::string i = expr(w.index);
  line("croq_dev::mbar_wait(&" + e.name + "[" + i + "], (" + e.phase + " >> (" + i + ")) & 1u);");
  line(e.phase + " ^= 1u << (" + i + ");");
}

namespace {

std::string coordinates(const Printer& p, const std::vector<ir::ExprRef>& coords) {
  std::string out;
  for (const auto& c : coords) out += ", " + p.expr(c);
  return out;
}

}  // namespace

void Printer::tma_load(const ir::TmaLoad& t) {
  const std::string bar = event_slot(t.event, t.event_index);
  const std::string& map = kernel_.params[static_cast<std::size_t>(t.map)].name;
  line("if (" + expr(t.leader) + ") {");
  line(std::string("  croq_dev::") + (t.arrive ? "mbar_arrive_expect_tx(" : "mbar_expect_tx(") + bar + ", " +
       std::to_string(t.bytes) + ");");
  // `.evict_*`: the `_hint` form, its L2 policy after the barrier (and mask).
  const std::string hint = t.l2_eviction.empty() ? "" : "hint_";
  const std::string policy = t.l2_eviction.empty() ? "" : ", croq_dev::l2_policy_" + t.l2_eviction + "()";
  const std::string load = "  croq_dev::tma_load_" + std::string(t.multicast && t.multicast->slices > 0 ? "multicast_" : "") +
                           hint + std::to_string(t.coords.size()) + "d(";
  if (!t.multicast || t.multicast->slices == 0) {
    line(load + expr(t.destination) + ", &" + map + ", " + bar + policy + coordinates(*this, t.coords) + ");");
    line("}");
    return;
  }
  const ir::TmaLoad::Multicast& m = *t.multicast;
  const std::string mask = ", (unsigned short)(" + expr(m.mask) + ")" + policy;
  if (m.slices == 1) {  // the first block loads the tile into every block
    line("  if ((" + expr(m.rank) + ") == 0)" + load.substr(1) + expr(t.destination) + ", &" + map + ", " + bar + mask +
         coordinates(*this, t.coords) + ");");
  } else {  // each block loads its slice of rows into every block
    const std::string r = "(" + expr(m.rank) + ")";
    const std::vector<ir::ExprRef> inner(t.coords.begin(), t.coords.end() - 1);
    line(load + "(" + expr(t.destination) + ") + " + r + " * " + std::to_string(m.slice_elements) + ", &" + map + ", " +
         bar + mask + coordinates(*this, inner) + ", " + expr(t.coords.back()) + " + " + r + " * " +
         std::to_string(m.slice_rows) + ");");
  }
  line("}");
}

void Printer::tma_store(const ir::TmaStore& t) {
  const std::string& map = kernel_.params[static_cast<std::size_t>(t.map)].name;
  line("if (" + expr(t.leader) + ") {");
  line("  croq_dev::tma_store_" + std::to_string(t.coords.size()) + "d(&" + map + ", " + expr(t.source) +
       coordinates(*this, t.coords) + ");");
  line("  croq_dev::bulk_commit_group();");
  if (t.wait) line("  croq_dev::bulk_wait_group<0>();");
  line("}");
}

// An accumulator by name, or one of an array of them.
std::string Printer::accumulator_text(const std::string& name, const ir::ExprRef& index) const {
  return index ? name + "[" + expr(index) + "]" : name;
}

void Printer::mma_fill(const ir::MmaFill& f) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(f.accumulator)];
  if (acc.n == 0) {  // never multiplied: nothing to hold
    line("// " + acc.name + ": accumulator without an mma");
    return;
  }
  const ir::ExprRef& value = f.op.empty() ? acc.fill : f.value;
  const std::string op = f.op.empty() ? "=" : f.op;
  if (acc.warp) {
    // A warp's accumulator: float (f32, f16) or int (s32) registers, 4 per
    // m16n8 block; an array of them (`frag mc[2][3]`) one row each.
    const std::int64_t per = (acc.rows + 15) / 16 * ((acc.n + 7) / 8) * 4;
    std::int64_t count = 1;
    for (std::int64_t d : acc.array_dims) count *= d;
    const std::string regs = std::to_string(per);
    const std::string type = acc.dtype == DType::s32 ? "int " : "float ";
    if (!acc.array_dims.empty()) {
      if (f.op.empty()) {
        line(type + acc.name + "[" + std::to_string(count) + "][" + regs + "];");
        line("for (int i = 0; i < " + std::to_string(count * per) + "; ++i) (&" + acc.name + "[0][0])[i] = " + expr(value) + ";");
        return;
      }
      line("for (int i = 0; i < " + regs + "; ++i) " + acc.name + "[" + expr(f.index) + "][i] " + op + " " + expr(value) + ";");
      return;
    }
    if (f.op.empty()) line(type + acc.name + "[" + regs + "];");
    line("#pragma unroll");
    line("for (int i = 0; i < " + regs + "; ++i) " + acc.name + "[i] " + op + " " + expr(value) + ";");
    return;
  }
  if (acc.dtype == DType::f32) {
    const std::string regs = std::to_string(acc.n / 2);
    if (f.op.empty()) {
      line("float " + acc.name + "[" + regs + "];");
      // Element-wise work lowered before the mma that sized it loops to this.
      if (acc.registers >= 0) line("constexpr int " + acc.name + "_registers = " + regs + ";");
    }
    line("for (int i = 0; i < " + regs + "; ++i) " + acc.name + "[i] = " + expr(value) + ";");
  } else {
    const std::string regs = std::to_string(acc.n / 4);
    if (f.op.empty()) line("unsigned " + acc.name + "[" + regs + "];");
    line("{ const __half2 v = __float2half2_rn(" + expr(value) + "); for (int i = 0; i < " + regs + "; ++i) " + acc.name +
         "[i] = *reinterpret_cast<const unsigned*>(&v); }");
  }
}

void Printer::mma(const ir::Mma& m) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  const std::string ab = cuda_type(m.input);
  const std::string n = std::to_string(acc.n);
  if (m.instruction == ir::MmaInstruction::mma_sync_gather) {
    // Each warp its own M x N tile; fragments read element by element, a
    // tail tile's elements past the tensor's edge as 0 (its rows and cols).
    std::string bounds;
    if (m.a.rows || m.b.rows) {
      const std::string k = std::to_string(m.k);
      const std::string b_rows = m.b_n_major ? k : n, b_cols = m.b_n_major ? n : k;
      bounds = ", " + (m.a.rows ? expr(m.a.rows) + ", " + expr(m.a.cols) : std::to_string(acc.rows) + ", " + k) + ", " +
               (m.b.rows ? expr(m.b.rows) + ", " + expr(m.b.cols) : b_rows + ", " + b_cols);
    }
    const std::string ptr = "reinterpret_cast<const " + ab + "*>(";
    line("croq_dev::mma_warp_gather<" + std::to_string(acc.rows) + ", " + n + ", " + std::to_string(m.k) + ", " +
         (m.b_n_major ? "true" : "false") + ">(" + accumulator_text(acc.name, m.index) + ", " + ptr + expr(m.a.address) + "), " + expr(m.a.leading) +
         ", " + ptr + expr(m.b.address) + "), " + expr(m.b.leading) + bounds + ");");
    return;
  }
  if (m.instruction == ir::MmaInstruction::mma_sync && acc.warp) {
    // Each warp its own 16 x N tile (warp-level mma); row.col reads b with ldmatrix.trans.
    line("croq_dev::mma_sync_m16nNkK<" + n + ", " + std::to_string(m.k) + ", " + std::to_string(m.a.swizzle) + "u, " +
         std::to_string(m.b.swizzle) + "u, " + ab + ", " + (m.b_n_major ? "true" : "false") + ">(" +
         accumulator_text(acc.name, m.index) + ", " +
         expr(m.a.address) + ", " + std::to_string(m.a.pitch) + "u, " + expr(m.b.address) + ", " +
         std::to_string(m.b.pitch) + "u);");
    return;
  }
  if (m.instruction == ir::MmaInstruction::mma_sync) {
    // One warpgroup, K / 16 k-steps of N / 8 m16n8k16 per warp, operands
    // through ldmatrix at their swizzled addresses; synchronous.
    line("croq_dev::mma_sync_m64nNkK<" + n + ", " + std::to_string(m.k) + ", " + std::to_string(m.a.swizzle) + "u, " +
         std::to_string(m.b.swizzle) + "u, " + ab + ">(" + acc.name + ", " + expr(m.a.address) + ", " +
         std::to_string(m.a.pitch) + "u, " + expr(m.b.address) + ", " + std::to_string(m.b.pitch) + "u);");
    return;
  }
  if (m.a_fragment >= 0) {
    mma_rs(m);
    return;
  }
  line("{");
  indent();
  line("croq_dev::fence_accum(" + acc.name + ");");
  line("croq_dev::wgmma_fence();");
  if (m.metadata) {
    sparse_wgmma(m, acc);
    return;
  }
  if (m.a_m_major) {
    mma_ss_m_major(m, acc);
    return;
  }
  line("const unsigned long long desc_a = croq_dev::make_kmajor_desc<" + std::to_string(m.a.swizzle) + ">(" +
       expr(m.a.address) + ");");
  if (m.b_n_major)  // row.col: B is [K, N], 16 rows of K per instruction
    line("const unsigned long long desc_b = croq_dev::make_mnmajor_desc<" + std::to_string(m.b.swizzle) + ">(" +
         expr(m.b.address) + ");");
  else
    line("const unsigned long long desc_b = croq_dev::make_kmajor_desc<" + std::to_string(m.b.swizzle) + ">(" +
         expr(m.b.address) + ");");
  line("#pragma unroll");
  if (m.b_n_major) {
    line("for (int k16 = 0; k16 < " + std::to_string(m.k / 16) + "; ++k16)");
    line("  croq_dev::wgmma_m64nNk16_tb<" + n + ", " + ab + ">(" + acc.name +
         ", croq_dev::desc_advance(desc_a, k16 * 32), croq_dev::desc_advance(desc_b, k16 * " + std::to_string(16 * m.b.pitch) + "));");
  } else if (is_fp8(m.input)) {  // k32 per instruction: 32 bytes of each row, as k16 of 16-bit types
    line("for (int k32 = 0; k32 < " + std::to_string(m.k / 32) + "; ++k32)");
    line("  croq_dev::wgmma_m64nNk32<" + n + ", " + ab + ", " + cuda_type(m.input_b) + ">(" + acc.name +
         ", croq_dev::desc_advance(desc_a, k32 * 32), croq_dev::desc_advance(desc_b, k32 * 32));");
  } else {
    line("for (int k16 = 0; k16 < " + std::to_string(m.k / 16) + "; ++k16)");
    line("  croq_dev::wgmma_m64nNk16<" + n + ", " + ab + ">(" + acc.name +
         ", croq_dev::desc_advance(desc_a, k16 * 32), croq_dev::desc_advance(desc_b, k16 * 32));");
  }
  line("croq_dev::wgmma_commit_group();");
  line("croq_dev::fence_accum(" + acc.name + ");");
  dedent();
  line("}");
}

// WGMMA .sp steps (K = 32 for 16-bit, 64 for fp8): each reads 32 bytes of
// every packed lhs row, 64 bytes of every rhs row and K / 8 metadata bytes
// of every metadata row. Closes the block mma() opened.
void Printer::sparse_wgmma(const ir::Mma& m, const ir::Accumulator& acc) {
  const bool fp8 = is_fp8(m.input);
  const int step = fp8 ? 64 : 32;
  line("const unsigned long long desc_a = croq_dev::make_kmajor_desc<" + std::to_string(m.a.swizzle) + ">(" +
       expr(m.a.address) + ");");
  line("const unsigned long long desc_b = croq_dev::make_kmajor_desc<" + std::to_string(m.b.swizzle) + ">(" +
       expr(m.b.address) + ");");
  line("const unsigned char* const meta = reinterpret_cast<const unsigned char*>(" + expr(m.metadata) + ");");
  line("#pragma unroll");
  line("for (int ks = 0; ks < " + std::to_string(m.k / step) + "; ++ks)");
  line("  croq_dev::wgmma_sp_m64nNkK<" + std::to_string(acc.n) + ", " + cuda_type(m.input) + ", " + cuda_type(m.input_b) +
       ">(" + acc.name + ", croq_dev::desc_advance(desc_a, ks * 32), croq_dev::desc_advance(desc_b, ks * 64), " +
       "croq_dev::sparse_metadata<" + (fp8 ? "true" : "false") + ">(meta + ks * " + std::to_string(step / 8) + ", " +
       std::to_string(m.metadata_pitch) + "u));");
  line("croq_dev::wgmma_commit_group();");
  line("croq_dev::fence_accum(" + acc.name + ");");
  dedent();
  line("}");
}

// col.row / col.col: A is [K, M] (M-major, imm-trans-a), B [N, K] or [K, N];
// each k16 step reads 16 rows of each N- or M-major tile. Closes the block
// mma() opened.
void Printer::mma_ss_m_major(const ir::Mma& m, const ir::Accumulator& acc) {
  line("const unsigned long long desc_a = croq_dev::make_mnmajor_desc<" + std::to_string(m.a.swizzle) + ">(" +
       expr(m.a.address) + ");");
  line("const unsigned long long desc_b = croq_dev::make_" + std::string(m.b_n_major ? "mnmajor" : "kmajor") + "_desc<" +
       std::to_string(m.b.swizzle) + ">(" + expr(m.b.address) + ");");
  const std::string b_step = m.b_n_major ? std::to_string(16 * m.b.pitch) : "32";
  line("#pragma unroll");
  line("for (int k16 = 0; k16 < " + std::to_string(m.k / 16) + "; ++k16)");
  line("  croq_dev::wgmma_m64nNk16_ta<" + std::to_string(acc.n) + ", " + cuda_type(m.input) + ", " +
       (m.b_n_major ? "true" : "false") + ">(" + acc.name + ", croq_dev::desc_advance(desc_a, k16 * " +
       std::to_string(16 * m.a.pitch) + "), croq_dev::desc_advance(desc_b, k16 * " + b_step + "));");
  line("croq_dev::wgmma_commit_group();");
  line("croq_dev::fence_accum(" + acc.name + ");");
  dedent();
  line("}");
}

// RS mode: A from the fragment's registers, one k16 slice per instruction;
// B's descriptor is K-major ([N, K]) or, for row.col, N-major ([K, N]).
void Printer::mma_rs(const ir::Mma& m) {
  if (is_fp8(m.input)) return mma_rs_fp8(m);
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  const ir::Buffer& frag = kernel_.buffers[static_cast<std::size_t>(m.a_fragment)];
  const std::string swizzle = std::to_string(m.b.swizzle);
  const std::string packed_count = std::to_string(frag.dims[0].value / 2);
  rs_open(m, "pack_fragment", packed_count);
  if (m.b_n_major)  // 16 rows of K per instruction: 16 rows of the tile's pitch
    line("const unsigned long long desc_b = croq_dev::make_mnmajor_desc<" + swizzle + ">(" + expr(m.b.address) + ");");
  else
    line("const unsigned long long desc_b = croq_dev::make_kmajor_desc<" + swizzle + ">(" + expr(m.b.address) + ");");
  const std::string advance = m.b_n_major ? std::to_string(16 * m.b.pitch) : "32";
  line("#pragma unroll");
  line("for (int k16 = 0; k16 < " + std::to_string(m.k / 16) + "; ++k16)");
  line("  croq_dev::wgmma_m64nNk16_rs<" + std::to_string(acc.n) + ", " + (m.b_n_major ? "true" : "false") + ", " +
       packed_count + ", " + (m.input == DType::bf16 ? "true" : "false") + ">(" + acc.name +
       ", a_packed, k16, croq_dev::desc_advance(desc_b, k16 * " + advance + "));");
  line("croq_dev::wgmma_commit_group();");
  line("croq_dev::fence_accum(" + acc.name + ");");
  dedent();
  line("}");
}

// Opens an RS-mode mma's block: the fragment packed by croq_dev::`pack`
// into `packed_count` registers `a_packed` before the WGMMA fence.
void Printer::rs_open(const ir::Mma& m, const std::string& pack, const std::string& packed_count) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  line("{");
  indent();
  line("croq_dev::u32 a_packed[" + packed_count + "];");
  line("croq_dev::" + pack + "(" + kernel_.buffers[static_cast<std::size_t>(m.a_fragment)].name + ", a_packed);");
  line("croq_dev::fence_packed(a_packed);");
  line("croq_dev::fence_accum(" + acc.name + ");");
  line("croq_dev::wgmma_fence();");
}

void Printer::mma_scale(const ir::MmaScale& m) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  const ir::Accumulator& part = kernel_.accumulators[static_cast<std::size_t>(m.partial)];
  line("croq_dev::fence_accum(" + part.name + ");  // read the partial only after the wait");
  line("croq_dev::scale_accum<" + std::to_string(acc.n) + ">(" + acc.name + ", " + part.name + ", " + expr(m.scale_a) +
       ", " + expr(m.scale_a_stride) + ", " + expr(m.scale_a_rows) + ", " + expr(m.scale_b) + ");");
}

void Printer::mma_store(const ir::MmaStore& m) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  if (acc.warp) {  // registers only: no fence
    const std::string t = "<" + std::to_string(acc.rows) + ", " + std::to_string(acc.n) + (m.transpose ? ", true>" : ">");
    // A shared tile has no tail; a masked store (mma.store.mask) has limits anywhere.
    const std::string limits = m.rows ? expr(m.rows) + ", " + expr(m.cols) : "0x7fffffff, 0x7fffffff";
    line("croq_dev::store_warp_accum" + t + "(" + accumulator_text(acc.name, m.index) + ", " + expr(m.destination) + ", " + expr(m.leading) + ", " +
         limits + ");");
    return;
  }
  const std::string n = std::to_string(acc.n);
  line("croq_dev::fence_accum(" + acc.name + ");  // read the accumulator only after the wait");
  // A masked store into shared memory takes the bounded form (generic
  // pointers: store_accum_global writes any memory).
  if (m.transpose)  // element by element: the pairs of a row go to two rows
    line("croq_dev::store_accum_transposed<" + n + ">(" + acc.name + ", " + expr(m.destination) + ", " + expr(m.leading) +
         ", " + (m.rows ? expr(m.rows) + ", " + expr(m.cols) : std::string("0x7fffffff, 0x7fffffff")) + ");");
  else if (m.space == ir::Space::shared && !m.rows && m.swizzle)
    line("croq_dev::store_accum_shared_swizzled<" + n + ", " + std::to_string(m.swizzle) + ">(" + acc.name + ", " +
         expr(m.destination) + ", " + expr(m.leading) + ");");
  else if (m.space == ir::Space::shared && !m.rows)
    line("croq_dev::store_accum_shared<" + n + ">(" + acc.name + ", " + expr(m.destination) + ", " + expr(m.leading) + ");");
  else
    line("croq_dev::store_accum_global<" + n + ">(" + acc.name + ", " + expr(m.destination) + ", " + expr(m.leading) + ", " +
         expr(m.rows) + ", " + expr(m.cols) + ");");
}

// A warp accumulator's initial value from a tile (registers only: no fence).
void Printer::mma_load(const ir::MmaLoad& m) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  const std::string limits = m.rows ? expr(m.rows) + ", " + expr(m.cols) : "0x7fffffff, 0x7fffffff";
  line("croq_dev::load_warp_accum<" + std::to_string(acc.rows) + ", " + std::to_string(acc.n) + ">(" + acc.name + ", " +
       expr(m.source) + ", " + expr(m.leading) + ", " + limits + ");");
}

}  // namespace croq::backend::cuda
