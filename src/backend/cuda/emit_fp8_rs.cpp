// RS-mode fp8 WGMMA: an mma whose lhs is an fp8 register fragment (e.g. an
// f32 accumulator converted element by element to f8_e4m3, attention's
// probabilities). The fragment is stored in the f32 accumulator layout,
// which is WGMMA's A layout for 16-bit inputs but not for 8-bit ones (k32:
// four consecutive columns a register), so it is repacked across the lanes
// of each quad first (croq_dev::pack_fragment_fp8); B is K-major ([N, K]),
// the only fp8 form.
#include "backend/cuda/cuda_printer.hpp"

namespace croq::backend::cuda {

void Printer::mma_rs_fp8(const ir::Mma& m) {
  const ir::Accumulator& acc = kernel_.accumulators[static_cast<std::size_t>(m.accumulator)];
  const ir::Buffer& frag = kernel_.buffers[static_cast<std::size_t>(m.a_fragment)];
  const std::string packed_count = std::to_string(frag.dims[0].value / 4);
  rs_open(m, "pack_fragment_fp8", packed_count);
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
