// The sparse multiply `mma.row.row.sp acc, a, b, meta`: a holds the packed
// values of a 2:4 sparse lhs and meta (an mma.load of an integer tile) where
// they came from. The operands are checked as a dense multiply's; the
// shapes (a is [64, K / 2], meta u8 [64, K / 8]) are checked per call.
#include "sema/checker.hpp"

namespace croq::sema::detail {

void MmaChecker::mma_sparse_multiply(const Stmt& s, const Mma& m) {
  if (!find_modifier(m.modifiers, "sp"))
    fail(Rule::mma_sparse_metadata, s.location,
         "mma." + m.layout + " takes 3 operands; a fourth (sparsity metadata) belongs to the sparse form",
         "write `mma." + m.layout + ".sp acc, a, b, meta` for a 2:4 sparse lhs");
  // The accumulator counts as written even when an operand is rejected
  // below: its store then reports nothing more than the multiply did.
  if (Accumulator* acc = written_accumulator(*m.operands[0])) acc->written = true;
  const Expr& meta_expr = *m.operands[3];
  Type meta = c_.expressions.expr(meta_expr);
  require_ok(meta);
  // Upstream Croqtile reports this under its own rule; libcroqjit's is the
  // operand-kind rule (tests/conformance/rejects.tsv).
  if (meta.kind != Kind::operand)
    fail(Rule::mma_operand_kind, meta_expr.location,
         "sparse WGMMA metadata must be loaded with mma.load before use, got `" + text(meta_expr) + "`",
         "load it first: `me = mma.load meta_tile;`", notes_of(meta));
  const DType t = meta.buffer ? meta.buffer->dtype : DType::u8;
  const bool integer = t == DType::u8 || t == DType::s8 || t == DType::u16 || t == DType::s16 || t == DType::u32 ||
                       t == DType::s32;
  if (!integer)
    fail(Rule::mma_sparse_metadata, meta_expr.location,
         "sparsity metadata is a tile of integer codes, got a " + std::string(dtype_name(t)) + " tile",
         "load the u8 metadata that the 2:4 encoding produced");
  if (t != DType::u8)
    limitation(Rule::unsupported_mma_form, meta_expr.location,
               std::string(dtype_name(t)) + " sparsity metadata is not supported yet by libcroqjit",
               "libcroqjit reads WGMMA .sp metadata as u8 [64, K / 8] (two 4-bit codes a byte)");
  if (!cx_.wgmma() || c_.levels.on_single_warps())
    limitation(Rule::unsupported_mma_form, s.location,
               "a sparse mma lowers to WGMMA .sp on whole warpgroups (sm_90a) only; libcroqjit has no mma.sync .sp form",
               "multiply in a group-4 level and compile for sm_90a");
  mma_multiply(s, m);
}

}  // namespace croq::sema::detail
