// RS-mode fp8 WGMMA: an mma whose lhs is an fp8 register fragment (e.g. an
// f32 accumulator converted element by element to f8_e4m3, attention's
// probabilities). The fragment is stored in the f32 accumulator layout,
// which is WGMMA's A layout for 16-bit inputs but not for 8-bit ones (k32:
// four consecutive columns a register), so it is repacked across the lanes
// of each quad first (croq_dev::pack_fragment_fp8); B is K-major ([N, K]),
// the only fp8 form. Mmas of one fragment one after another share one
// repacking (fp8_pack_sharing).
#include "backend/cuda/cuda_printer.hpp"

namespace croq::backend::cuda {

namespace {

// The statement's RS-mode fp8 wgmma, or null.
const ir::Mma* rs_fp8_mma(const ir::Stmt& s) {
  const auto* m = std::get_if<ir::Mma>(&s.node);
  return m && m->instruction == ir::MmaInstruction::wgmma && m->a_fragment >= 0 && is_fp8(m->input) ? m : nullptr;
}

// The RS-mode fp8 wgmma next to statement i in `step` (-1 or 1), over line
// marks only, or null.
const ir::Mma* neighbour(const ir::StmtList& body, std::size_t i, int step) {
  for (std::size_t j = i + step; j < body.size(); j += step) {  // wraps past 0 to a huge index
    if (std::holds_alternative<ir::LineMark>(body[j]->node)) continue;
    return rs_fp8_mma(*body[j]);
  }
  return nullptr;
}

}  // namespace

Printer::Fp8PackSharing Printer::fp8_pack_sharing(const ir::StmtList& body, std::size_t i) {
  Fp8PackSharing sharing;
  sharing.mma = rs_fp8_mma(*body[i]);
  if (!sharing.mma) return sharing;
  const ir::Mma* before = neighbour(body, i, -1);
  const ir::Mma* after = neighbour(body, i, 1);
  // Nothing but line marks between them: the fragment is unchanged.
  sharing.from_previous = before && before->a_fragment == sharing.mma->a_fragment;
  sharing.to_next = after && after->a_fragment == sharing.mma->a_fragment;
  return sharing;
}

void Printer::mma_rs_fp8(const ir::Mma& m) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  const ir::Buffer& frag = kernel_.buffers[static_cast<std::size_t>(m.a_fragment)];
  const std::string packed_count = std::to_string(frag.dims[0].value / 4);
  const bool shared = fp8_pack_.mma == &m && (fp8_pack_.from_previous || fp8_pack_.to_next);
  if (!shared) {
    rs_open(m, "pack_fragment_fp8", packed_count);
  } else {
    if (!fp8_pack_.from_previous) {  // the first of the run packs, in the enclosing scope
      fp8_packed_name_ = fresh(frag.name + "_packed");
      line("croq_dev::u32 " + fp8_packed_name_ + "[" + packed_count + "];  // read by the next mmas too");
      line("croq_dev::pack_fragment_fp8(" + frag.name + ", " + fp8_packed_name_ + ");");
    }
    line("{");
    indent();
    line("croq_dev::u32 (&a_packed)[" + packed_count + "] = " + fp8_packed_name_ + ";");
    line("croq_dev::fence_packed(a_packed);");
    line("croq_dev::fence_accum(" + acc.name + ");");
    line("croq_dev::wgmma_fence();");
  }
  line("const unsigned long long desc_b = croq_dev::make_kmajor_desc<" + std::to_string(m.b.swizzle) + ">(" +
       expr(m.b.address) + ");");
  line("#pragma unroll");
  line("for (int k32 = 0; k32 < " + std::to_string(m.k / 32) + "; ++k32)");
  line("  croq_dev::wgmma_m64nNk32_rs<" + std::to_string(acc.n) + ", " + packed_count + ", " + cuda_type(m.input) + ", " +
       cuda_type(m.input_b) + ">(" + acc.name + ", a_packed, k32, croq_dev::desc_advance(desc_b, k32 * 32));");
  line("croq_dev::wgmma_commit_group();");
  line("croq_dev::fence_accum(" + acc.name + ");");
  dedent();
  line("}");
}

}  // namespace croq::backend::cuda
