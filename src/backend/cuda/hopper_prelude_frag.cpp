// The register-fragment section of the device prelude (see
// hopper_prelude.hpp): RS-mode WGMMA, A from registers and B from a shared
// memory descriptor, for the forms a kernel uses, and the reductions of a
// warpgroup's accumulator rows across the lanes that hold them.
//
// PTX: `wgmma.mma_async ... d, {a0, a1, a2, a3}, b-desc, scale-d,
// imm-scale-a, imm-scale-b, imm-trans-b` for 16-bit inputs. Thread t of the
// warpgroup holds, in a0..a3 of k16 slice s, two elements each of rows
// 16(t/32) + (t%32)/4 (+8) and columns 16s + 2(t%4) (+8): the pairs that
// the f32 accumulator layout of a [64, K] tile keeps in registers 8s..8s+7,
// in that order. So a fragment is stored exactly like an accumulator, and an
// accumulator converted element by element is an A operand.
#include "backend/cuda/hopper_prelude.hpp"

namespace croq::backend::cuda {
namespace {

constexpr std::string_view kFragHead = R"CUDA(
// ===== croq hopper prelude: register fragments (RS-mode WGMMA) =====
namespace croq_dev {
__device__ __forceinline__ u32 pack_pair(__half lo, __half hi) {
  return u32(__half_as_ushort(lo)) | (u32(__half_as_ushort(hi)) << 16);
}
__device__ __forceinline__ u32 pack_pair(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return u32(__bfloat16_as_ushort(lo)) | (u32(__bfloat16_as_ushort(hi)) << 16);
}

// The max / sum of a row over the 4 lanes of a quad, which hold its columns.
__device__ __forceinline__ float quad_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ __forceinline__ float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}
#if CROQ_DEV_SM90A
namespace detail {
// Kind = 2 * (B is N-major: imm-trans-b) + (bf16 inputs).
template <int N, int Kind>
struct wgmma_rs;
template <int N, int Kind>
struct wgmma_ss_tb;  // both operands in shared memory, B N-major
template <typename AB>
struct rs_bf16 {
  static constexpr int value = 0;
};
template <>
struct rs_bf16<__nv_bfloat16> {
  static constexpr int value = 1;
};
)CUDA";

constexpr std::string_view kFragTail = R"CUDA(}  // namespace detail

// An N-major ([K][N]) tile copied with swizzle Span whose rows (one K each)
// are exactly Span bytes: K runs in atoms of 8 rows, 8 * Span bytes apart
// (the stride byte offset); N fits in one atom, so the leading byte offset,
// the distance between atoms along N, is never used.
template <u32 Span>
__device__ __forceinline__ u64 make_mnmajor_desc(const void* tile) {
  static_assert(Span == 32 || Span == 64 || Span == 128, "swizzled N-major needs span 32, 64 or 128");
  return make_smem_desc(tile, 8 * Span, 8 * Span, Span);
}

// The fragment's pairs packed as WGMMA's A registers (R / 2 of them), done
// before the wgmma fence so that no register is written between the fence
// and the instructions that read it.
template <int R, typename AB>
__device__ __forceinline__ void pack_fragment(const AB (&a)[R], u32 (&packed)[R / 2]) {
#pragma unroll
  for (int i = 0; i < R / 2; ++i) packed[i] = pack_pair(a[2 * i], a[2 * i + 1]);
}
// pack_fragment's registers are live until the wgmma reading them: keep the
// compiler from moving their computation past the fence.
template <int P>
__device__ __forceinline__ void fence_packed(u32 (&packed)[P]) {
#pragma unroll
  for (int i = 0; i < P; ++i) asm volatile("" : "+r"(packed[i])::"memory");
}

// D[64 x N] += A[64 x 16] * B[16 x N] with A the k16 slice `k16` of a
// fragment's packed registers (pack_fragment: P = K / 4 of them, the
// accumulator layout of [64, K]) and B from shared memory: [N][K]
// (K-major), or with TransB [K][N] (N-major). d: N / 2 floats, the
// accumulator layout. Bf16: bf16 inputs, else f16.
template <int N, bool TransB, int P, bool Bf16>
__device__ __forceinline__ void wgmma_m64nNk16_rs(float (&d)[N / 2], const u32 (&a)[P], int k16, u64 desc_b,
                                                  int scale_d = 1) {
  const int i = 4 * k16;
  detail::wgmma_rs<N, 2 * int(TransB) + int(Bf16)>::run(d, a[i], a[i + 1], a[i + 2], a[i + 3], desc_b, scale_d);
}

// The same with A from shared memory (K-major): mma.row.col of two shared tiles.
template <int N, typename AB>
__device__ __forceinline__ void wgmma_m64nNk16_tb(float (&d)[N / 2], u64 desc_a, u64 desc_b, int scale_d = 1) {
  detail::wgmma_ss_tb<N, detail::rs_bf16<AB>::value>::run(d, desc_a, desc_b, scale_d);
}
#endif  // CROQ_DEV_SM90A
}  // namespace croq_dev
// ===== end of croq hopper prelude: register fragments =====
)CUDA";

// template <> struct wgmma_rs<N, Kind> { static void run(d, a0..a3, b, scale_d) { asm(...); } };
void emit_wgmma_rs(std::string& out, const RsWgmmaForm& f) {
  const int regs = f.n / 2;
  const int kind = 2 * (f.b_n_major ? 1 : 0) + (f.bf16 ? 1 : 0);
  const std::string ns = std::to_string(f.n);
  const auto op = [](int i) { return "%" + std::to_string(i); };
  out += "template <>\nstruct wgmma_rs<" + ns + ", " + std::to_string(kind) + "> {\n  static __device__ __forceinline__ void run(float (&d)[" +
         std::to_string(regs) + "], u32 a0, u32 a1, u32 a2, u32 a3, u64 b, int scale_d) {\n    asm volatile(\n"
         "        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, " + op(regs + 5) + ", 0;\\n\"\n"
         "        \"wgmma.mma_async.sync.aligned.m64n" + ns + "k16.f32" + (f.bf16 ? ".bf16.bf16" : ".f16.f16") + " {\"\n        \"";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += op(i);
  }
  out += "},\"\n        \" {" + op(regs) + ", " + op(regs + 1) + ", " + op(regs + 2) + ", " + op(regs + 3) + "}, " +
         op(regs + 4) + ", p, 1, 1, " + (f.b_n_major ? "1" : "0") + ";\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += "\"+f\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

// template <> struct wgmma_ss_tb<N, Kind> { static void run(d, a, b, scale_d) { asm(...); } };
void emit_wgmma_ss_tb(std::string& out, const RsWgmmaForm& f) {
  const int regs = f.n / 2;
  const std::string ns = std::to_string(f.n);
  const auto op = [](int i) { return "%" + std::to_string(i); };
  out += "template <>\nstruct wgmma_ss_tb<" + ns + ", " + (f.bf16 ? "1" : "0") +
         "> {\n  static __device__ __forceinline__ void run(float (&d)[" + std::to_string(regs) +
         "], u64 a, u64 b, int scale_d) {\n    asm volatile(\n"
         "        \"{\\n.reg .pred p;\\nsetp.ne.b32 p, " + op(regs + 2) + ", 0;\\n\"\n"
         "        \"wgmma.mma_async.sync.aligned.m64n" + ns + "k16.f32" + (f.bf16 ? ".bf16.bf16" : ".f16.f16") + " {\"\n        \"";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 16 == 0) ? ", \"\n        \"" : ", ";
    out += op(i);
  }
  out += "},\"\n        \" " + op(regs) + ", " + op(regs + 1) + ", p, 1, 1, 0, 1;\\n}\\n\"\n        : ";
  for (int i = 0; i < regs; ++i) {
    if (i > 0) out += (i % 8 == 0) ? ",\n          " : ", ";
    out += "\"+f\"(d[" + std::to_string(i) + "])";
  }
  out += "\n        : \"l\"(a), \"l\"(b), \"r\"(scale_d)\n        : \"memory\");\n  }\n};\n";
}

}  // namespace

std::string hopper_prelude_frag(const std::vector<RsWgmmaForm>& forms) {
  std::string text(kFragHead);
  for (const RsWgmmaForm& f : forms) f.a_in_shared ? emit_wgmma_ss_tb(text, f) : emit_wgmma_rs(text, f);
  text += kFragTail;
  return text;
}

}  // namespace croq::backend::cuda
