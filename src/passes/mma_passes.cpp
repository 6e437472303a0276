// MMA instruction selection and WGMMA completion (see passes.hpp).
#include <algorithm>

#include "ir/builder.hpp"
#include "ir/walk.hpp"
#include "passes/passes.hpp"

namespace croq::passes {

namespace {

// `element_bytes`: the operand's element size; one instruction's K slice is
// 32 bytes on WGMMA (k16 of 16-bit types, k32 of fp8) and 16 elements on mma.sync.
// `n_major`: a row.col rhs ([K, N]); its K is the first dimension.
// `k_bytes`: the bytes of each row one WGMMA reads (64 for a sparse rhs).
void check_operand(const ir::Kernel& kernel, const ir::MmaOperand& op, bool wgmma, std::int64_t element_bytes,
                   bool n_major = false, std::int64_t k_bytes = 32) {
  const std::int64_t row_bytes = op.pitch;
  if (wgmma && (op.swizzle == 0 || row_bytes != op.swizzle))
    ir::fail(op.where, "WGMMA reads K-major tiles whose rows are one swizzle span: copy the tile with .swiz<" +
                           std::to_string(row_bytes == 32 || row_bytes == 64 || row_bytes == 128 ? row_bytes : 128) +
                           "> (rows of " + std::to_string(row_bytes) + " bytes here) and load it with the same swizzle");
  // mma.sync reads rows with ldmatrix: any swizzle or none, but 16-byte
  // aligned rows, and a swizzled tile's rows are one span.
  if (!wgmma && op.swizzle > 0 && row_bytes != op.swizzle)
    ir::fail(op.where, "a swizzled mma operand's rows must be one swizzle span: the tile is read as .swiz<" +
                           std::to_string(op.swizzle) + "> but its rows are " + std::to_string(row_bytes) + " bytes",
             "copy the tile with .swiz<N> where N is its row size in bytes, or without a swizzle");
  if (!wgmma && row_bytes % 16 != 0)
    ir::fail(op.where, "mma.sync loads operand rows with ldmatrix, which needs rows of a multiple of 16 bytes; "
                       "the tile's rows are " + std::to_string(row_bytes) + " bytes");
  if ((wgmma || op.swizzle > 0) && op.tile.origin_multiple[0] % 8 != 0)
    ir::fail(op.where, "an mma operand must start on a multiple of 8 rows of its tile");
  const std::int64_t k_step = wgmma ? k_bytes / element_bytes : 16;
  // ldmatrix.trans reads 16-byte rows of a [K, N] rhs: N starts on 8 elements.
  if (n_major && op.tile.origin_multiple[1] % 8 != 0)
    ir::fail(op.where, "a row.col rhs ([K, N]) must start on a multiple of 8 columns of its tile");
  const std::size_t k_dim = n_major ? 0 : 1;
  if (op.tile.origin_multiple[k_dim] % k_step != 0 || op.tile.extent[k_dim] % k_step != 0)
    ir::fail(op.where, "an mma operand's K range must start and end on multiples of " + std::to_string(k_step) +
                           " elements" + (k_bytes > 32 ? " (a sparse WGMMA reads 64 bytes of each rhs row per step)"
                                          : k_step == 32 ? " (fp8 WGMMA multiplies K in steps of 32)" : ""));
  (void)kernel;
}

// Whether a warp's mma.sync can read `op` with ldmatrix (the conditions
// check_operand enforces for mma.sync, plus 16-bit elements in shared memory).
bool ldmatrix_fits(const ir::MmaOperand& op, std::int64_t element_bytes, bool n_major) {
  const std::size_t k_dim = n_major ? 0 : 1;
  return op.space == ir::Space::shared && element_bytes == 2 && op.pitch % 16 == 0 &&
         (op.swizzle == 0 || (op.pitch == op.swizzle && op.tile.origin_multiple[0] % 8 == 0)) &&
         (!n_major || op.tile.origin_multiple[1] % 8 == 0) && op.tile.origin_multiple[k_dim] % 16 == 0 &&
         op.tile.extent[k_dim] % 16 == 0;
}

// The WGMMA completion state along program order.
struct Completion {
  ir::Kernel& kernel;
  bool pending = false;

  ir::StmtPtr wait(int groups, const std::string& note = "") { return ir::make_stmt(ir::MmaWait{groups, note}); }

  // `trigger e[i]` ending a loop body while a group is in flight: wait for
  // all but the newest group, release the stage the previous iteration
  // used, and remember this one; after the loop, release the last.
  bool defer_release(ir::StmtList& list, std::size_t at, ir::For& loop, ir::StmtList& after_loop_pre,
                     ir::StmtList& after_loop_post) {
    auto& arrive = std::get<ir::Arrive>(list[at]->node);
    if (!arrive.ends_loop_body || kernel.events[static_cast<std::size_t>(arrive.event)].count < 2) return false;
    for (std::size_t j = at + 1; j < list.size(); ++j)
      if (!std::holds_alternative<ir::LineMark>(list[j]->node)) return false;
    (void)loop;
    const std::string held = kernel.fresh("loop") + "_held";
    const ir::ExprRef held_var = ir::var(held);
    auto release_previous = [&] {
      ir::Arrive previous = arrive;
      previous.index = held_var;
      ir::StmtList body;
      body.push_back(ir::make_stmt(std::move(previous), list[at]->where));
      return ir::make_stmt(ir::If{ir::binary(">=", held_var, ir::int_const(0)),
                                  ir::make_stmt(ir::Seq{std::move(body), false}), nullptr});
    };
    ir::StmtList replacement;
    replacement.push_back(wait(1, "the previous group is done: release its stage"));
    replacement.push_back(release_previous());
    replacement.push_back(ir::make_stmt(ir::Assign{held_var, "=", arrive.index, nullptr}));
    after_loop_pre.push_back(ir::make_stmt(ir::Let{held, ir::Type::i32(), false, ir::int_const(-1)}));
    after_loop_post.push_back(wait(0));
    after_loop_post.push_back(release_previous());
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(at));
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(replacement.begin()),
                std::make_move_iterator(replacement.end()));
    return true;
  }

  // Walks `list` in program order; `loop` is the For whose body it is.
  void walk(ir::StmtList& list, ir::For* loop, ir::StmtList* pre, ir::StmtList* post, bool* deferred) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      ir::Stmt& s = *list[i];
      if (auto* mma = std::get_if<ir::Mma>(&s.node)) {
        if (mma->instruction == ir::MmaInstruction::wgmma) pending = true;
      } else if (std::holds_alternative<ir::MmaCommit>(s.node)) {
        if (pending) {
          list[i] = wait(0);
          pending = false;
        } else {
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i--));
        }
      } else if (std::holds_alternative<ir::MmaStore>(s.node) || std::holds_alternative<ir::MmaScale>(s.node)) {
        if (pending) {
          list.insert(list.begin() + static_cast<std::ptrdiff_t>(i++), wait(0));
          pending = false;
        }
      } else if (std::holds_alternative<ir::Arrive>(s.node)) {
        if (!pending) continue;
        if (loop && !*deferred && defer_release(list, i, *loop, *pre, *post)) {
          *deferred = true;
          i += 2;  // past the replacement
          continue;
        }
        list.insert(list.begin() + static_cast<std::ptrdiff_t>(i++), wait(0));
        pending = false;
      } else if (auto* f = std::get_if<ir::For>(&s.node)) {
        ir::StmtList loop_pre, loop_post;
        bool loop_deferred = false;
        walk(std::get<ir::Seq>(f->body->node).body, f, &loop_pre, &loop_post, &loop_deferred);
        if (loop_deferred) {
          pending = false;  // the text after the loop waits for every group
          const auto n_pre = static_cast<std::ptrdiff_t>(loop_pre.size());
          list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(loop_pre.begin()),
                      std::make_move_iterator(loop_pre.end()));
          i += static_cast<std::size_t>(n_pre);  // the loop again
          list.insert(list.begin() + static_cast<std::ptrdiff_t>(i + 1), std::make_move_iterator(loop_post.begin()),
                      std::make_move_iterator(loop_post.end()));
          i += loop_post.size();
        }
      } else if (auto* region = std::get_if<ir::WarpgroupRegion>(&s.node)) {
        const bool saved = pending;
        pending = false;
        auto& body = std::get<ir::Seq>(region->body->node).body;
        bool none = false;
        walk(body, nullptr, nullptr, nullptr, &none);
        if (pending) body.push_back(wait(0));
        pending = saved;
      } else if (auto* seq = std::get_if<ir::Seq>(&s.node)) {
        walk(seq->body, nullptr, nullptr, nullptr, deferred);
      } else {
        // A branch may wait where the other path does not: after it, a
        // group is pending if it was before or is at the end of any body.
        const bool before = pending;
        bool after = false;
        for (ir::StmtPtr* b : ir::nested_bodies(s)) {
          bool none = false;
          pending = before;
          walk(std::get<ir::Seq>((*b)->node).body, nullptr, nullptr, nullptr, &none);
          after = after || pending;
        }
        pending = before || after;
      }
    }
  }
};

}  // namespace

void select_mma_instructions(ir::Kernel& kernel, const target::Target& target) {
  ir::for_each<ir::Mma>(*kernel.body, [&](ir::Mma& mma, ir::Stmt& s) {
    // Warp-level mma (16-row accumulators) is mma.sync on every target.
    const ir::Accumulator& acc = kernel.accumulators[static_cast<std::size_t>(mma.accumulator)];
    const bool per_warp = acc.warp;
    const bool wgmma = target.wgmma() && !per_warp;
    // A warp's tiles: ldmatrix where it reads them (shared, 16 rows, 16-bit
    // elements on 16-byte rows, k16 steps), else fragments gathered element
    // by element (global memory, other shapes and types; unswizzled).
    if (per_warp) {
      const std::int64_t bytes = static_cast<std::int64_t>(dtype_size(mma.input));
      const bool ldmatrix = acc.rows == 16 && acc.n % 8 == 0 && mma.k % 16 == 0 && ldmatrix_fits(mma.a, bytes, false) &&
                            ldmatrix_fits(mma.b, bytes, mma.b_n_major);
      if (!ldmatrix && mma.a.swizzle == 0 && mma.b.swizzle == 0) {
        mma.instruction = ir::MmaInstruction::mma_sync_gather;
        return;
      }
    }
    if (is_fp8(mma.input) && !wgmma)
      ir::fail(mma.where, "mma on fp8 tiles lowers to WGMMA (sm_90a) only; libcroqjit has no mma.sync form for them "
                          "(compiling for " + target.arch + ")",
               "compile for sm_90a, or convert the tiles to f16 or bf16");
    if (mma.metadata && !wgmma)
      ir::fail(mma.where, "a sparse mma (`.sp`) lowers to WGMMA .sp, which needs sm_90a; compiling for " + target.arch);
    if (mma.a_fragment >= 0 && !wgmma)
      ir::fail(mma.where, "an mma whose lhs is a register fragment lowers to RS-mode WGMMA (sm_90a) only (compiling for " +
                              target.arch + ")",
               "compile for sm_90a, or multiply a shared tile");
    mma.instruction = wgmma ? ir::MmaInstruction::wgmma : ir::MmaInstruction::mma_sync;
    if (mma.a_fragment < 0) check_operand(kernel, mma.a, wgmma, static_cast<std::int64_t>(dtype_size(mma.input)));
    // A sparse step covers twice the dense K: 32 bytes of packed lhs, 64 of rhs.
    check_operand(kernel, mma.b, wgmma, static_cast<std::int64_t>(dtype_size(mma.input_b)), mma.b_n_major,
                  mma.metadata ? 64 : 32);
    if (wgmma && !kernel.needs_sm90)
      kernel.needs_sm90 = Diagnostic{Severity::error, "mma lowers to WGMMA, which needs sm_90a (Hopper)", s.where.line,
                                     s.where.column, s.where.length, ""};
  });
}

void complete_mma_groups(ir::Kernel& kernel) {
  Completion c{kernel};
  bool none = false;
  c.walk(std::get<ir::Seq>(kernel.body->node).body, nullptr, nullptr, nullptr, &none);
}

void reallocate_registers(ir::Kernel& kernel, const target::Target& target) {
  // Producers (no mma) give registers to consumers when the block is split
  // into both and they are whole warpgroups: 40 per producer thread, the
  // rest of the 64K register file shared by the consumers.
  if (!target.setmaxnreg()) return;
  std::int64_t producers = 0, consumers = 0;
  ir::for_each<ir::WarpgroupRegion>(*kernel.body, [&](ir::WarpgroupRegion& r, ir::Stmt&) {
    if (r.whole_warpgroups) (r.mma ? consumers : producers) += r.set.threads;
  });
  if (producers == 0 || consumers == 0 || producers + consumers != kernel.block_threads) return;
  std::int64_t per_consumer = std::min<std::int64_t>((65536 - producers * 40) / consumers / 8 * 8, 240);
  if (per_consumer <= 65536 / kernel.block_threads) return;
  ir::for_each<ir::WarpgroupRegion>(*kernel.body, [&](ir::WarpgroupRegion& r, ir::Stmt&) {
    if (!r.whole_warpgroups) return;
    auto& body = std::get<ir::Seq>(r.body->node).body;
    body.insert(body.begin(), ir::make_stmt(ir::SetMaxNReg{r.mma, static_cast<int>(r.mma ? per_consumer : 40)}));
  });
}

}  // namespace croq::passes
