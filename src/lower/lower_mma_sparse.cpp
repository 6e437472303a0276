// Lowering of the 2:4 sparse multiply `mma.row.row.sp acc, a, b, meta`.
//
// a is [64, K / 2]: the two kept values of every group of four of a dense
// [64, K] lhs, packed (choreo::utils::SparsePolicyWGMMA). meta, an mma.load
// of a shared u8 [64, K / 8] tile, says where they were: one 4-bit code per
// group, two groups a byte, low nibble first. b is the dense [N, K] rhs. It
// runs as WGMMA .sp on sm_90a: K in steps of 32 (f16, bf16) or 64 (fp8);
// every step reads 32 bytes of each a row, 64 bytes of each b row and 4 or
// 8 metadata bytes per row, which the device prelude gathers into each
// thread's metadata register (hopper_prelude_sparse.cpp).
#include "lower/lowering.hpp"

namespace croq::lower::detail {

void MmaLowering::mma_sparse_multiply(const Stmt& s, const Mma& m) {
  if (!target_.wgmma())
    fail(s.location, "a sparse mma (`.sp`) lowers to WGMMA .sp, which needs sm_90a; compiling for " + target_.arch);
  // Sema's protocol: `.sp` and four operands, no other modifier.
  if (!mma_protocol(s, m).sparse) unchecked(s.location, sema::Rule::mma_sparse_metadata);
  if (m.layout != "row.row")
    fail(s.location, "a sparse mma reads lhs [M, K / 2] and rhs [N, K], both K contiguous: write mma.row.row.sp");
  if (!on_whole_warpgroups()) fail(s.location, "WGMMA runs on whole warpgroups: put the mma inside `parallel p by N : group-4`");
  Value acc_value = expr(*m.operands[0]);
  if (acc_value.kind != Value::Kind::accumulator)
    unchecked(m.operands[0]->location, sema::Rule::accumulator_expected);
  acc_value.accumulator = scale_target(acc_value.accumulator);  // a later mma.scale's partial
  ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(acc_value.accumulator)];
  if (acc.rows != 64) fail(s.location, "a sparse mma multiplies into a warpgroup's accumulator (filled in a group-4 level)");
  View a, b;
  ir::Mma op;
  op.a = mma_tile_operand(*m.operands[1], a);
  op.b = mma_tile_operand(*m.operands[2], b);
  const DType ta = buffer(a.buffer).dtype, tb = buffer(b.buffer).dtype;
  const bool fp8 = is_fp8(ta) && is_fp8(tb);
  if (!fp8 && (ta != tb || (ta != DType::f16 && ta != DType::bf16)))
    fail(s.location, "a sparse WGMMA multiplies f16 or bf16 tiles (both the same) or fp8 tiles (f8_e4m3, f8_e5m2, in "
                     "any mix), got " + std::string(dtype_name(ta)) + " and " + std::string(dtype_name(tb)));
  if (!fp8 && acc.dtype == DType::f16 && ta != DType::f16)
    unchecked(s.location, sema::Rule::mma_element_types);
  if (a.extent[0] != 64)
    fail(m.operands[1]->location, "one warpgroup's mma takes 64 rows of lhs (WGMMA m64), got " + std::to_string(a.extent[0]));
  const std::int64_t k = b.extent[1];
  const std::int64_t step = fp8 ? 64 : 32;  // dense K of one WGMMA .sp
  if (a.extent[1] * 2 != k)
    fail(s.location, "a sparse lhs holds half of K: rhs has K = " + std::to_string(k) + ", so lhs must be [64, " +
                         std::to_string(k / 2) + "], got [64, " + std::to_string(a.extent[1]) + "]");
  if (k % step != 0)
    fail(s.location, "a sparse " + std::string(fp8 ? "fp8" : "16-bit") + " WGMMA multiplies K in steps of " +
                         std::to_string(step) + ", got K = " + std::to_string(k));
  const std::int64_t n = b.extent[0];
  if (!target::mma_n_supported(n))
    fail(m.operands[2]->location, "WGMMA's N (rhs rows) must be a multiple of 8 up to 256, got " + std::to_string(n));
  if (acc.n != 0 && acc.n != n)
    fail(s.location, "the accumulator is 64 x " + std::to_string(acc.n) + " but this mma makes 64 x " + std::to_string(n));
  // The metadata: an mma.load result of a shared u8 [64, K / 8] tile.
  const Expr& meta_expr = *m.operands[3];
  Value meta = expr(meta_expr);
  if (meta.kind != Value::Kind::operand)
    unchecked(meta_expr.location, sema::Rule::mma_operand_kind);
  const ir::Buffer& mb = buffer(meta.view.buffer);
  if (mb.dtype != DType::u8 || meta.view.extent.size() != 2 || meta.view.extent[0] != 64 || meta.view.extent[1] != k / 8)
    fail(meta_expr.location, "the metadata of a sparse mma with K = " + std::to_string(k) + " is a u8 [64, " +
                                 std::to_string(k / 8) + "] tile (two 4-bit codes a byte), got " +
                                 shape_text(mb.dtype, meta.view.extent));
  if (mb.slots > 0 && !meta.view.slot) fail_buffer_array(meta_expr);
  if (meta.swizzle > 0) fail(meta_expr.location, "sparse metadata is read unswizzled: load it without .swiz");
  acc.n = n;
  op.accumulator = acc_value.accumulator;
  op.input = ta;
  op.input_b = tb;
  op.k = k;
  op.metadata = tile_address(meta.view);
  op.metadata_pitch = mb.dims.back().value;
  op.where = pos(s.location);
  emit_node(std::move(op), s.location);
}

}  // namespace croq::lower::detail
