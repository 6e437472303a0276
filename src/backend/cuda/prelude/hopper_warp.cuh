// The Hopper device prelude, part 4: warp-level mma with fragments gathered
// element by element (any layout, element type and tile edge), and the warp
// accumulators' stores.
#ifndef CROQ_PRELUDE_HOPPER_WARP_CUH
#define CROQ_PRELUDE_HOPPER_WARP_CUH
#include "hopper_accumulators.cuh"
namespace croq_dev {

// ---------------------------------------------------------------------------
// Warp accumulators: ceil(M / 16) x ceil(N / 8) m16n8 blocks, block (mb, nb)
// in registers 4 (mb * NB + nb) .. +3 (float, or int for s32); register i of
// a block is row 16 mb + lane / 4 + 8 (i / 2), column 8 nb + 2 (lane % 4) +
// (i % 2), the m16n8 C/D layout of every element type.
// ---------------------------------------------------------------------------
namespace detail {
// An input element as an mma.sync operand takes it: 16-bit types as they
// are, 8-bit integers as a byte, f32 rounded to tf32.
__device__ __forceinline__ u32 mma_bits(__half v) { return __half_as_ushort(v); }
__device__ __forceinline__ u32 mma_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
__device__ __forceinline__ u32 mma_bits(signed char v) { return static_cast<unsigned char>(v); }
__device__ __forceinline__ u32 mma_bits(unsigned char v) { return v; }
__device__ __forceinline__ u32 mma_bits(float v) {
  u32 r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}

// One m16n8 instruction per input type: its K, its A and B registers, the
// elements per register, and where element e of register i sits for lane
// (g = lane / 4, t = lane % 4): A row, A column (k) and B row (k); B's
// column is always g.
template <typename AB>
struct warp_mma_shape {  // f16, bf16: m16n8k16
  static constexpr int k = 16, a_regs = 4, b_regs = 2, per_reg = 2;
  static __device__ __forceinline__ int a_row(int g, int i) { return g + 8 * (i & 1); }
  static __device__ __forceinline__ int a_k(int t, int i, int e) { return 2 * t + e + 8 * (i >> 1); }
  static __device__ __forceinline__ int b_k(int t, int i, int e) { return 2 * t + e + 8 * i; }
};
template <>
struct warp_mma_shape<signed char> {  // s8, u8: m16n8k32, four bytes a register
  static constexpr int k = 32, a_regs = 4, b_regs = 2, per_reg = 4;
  static __device__ __forceinline__ int a_row(int g, int i) { return g + 8 * (i & 1); }
  static __device__ __forceinline__ int a_k(int t, int i, int e) { return 4 * t + e + 16 * (i >> 1); }
  static __device__ __forceinline__ int b_k(int t, int i, int e) { return 4 * t + e + 16 * i; }
};
template <>
struct warp_mma_shape<unsigned char> : warp_mma_shape<signed char> {};
template <>
struct warp_mma_shape<float> {  // tf32: m16n8k8
  static constexpr int k = 8, a_regs = 4, b_regs = 2, per_reg = 1;
  static __device__ __forceinline__ int a_row(int g, int i) { return g + 8 * (i & 1); }
  static __device__ __forceinline__ int a_k(int t, int i, int) { return t + 4 * (i >> 1); }
  static __device__ __forceinline__ int b_k(int t, int i, int) { return t + 4 * i; }
};

// d[0..3] += A * B for one m16n8 block.
template <typename AB>
struct warp_mma_op;
#define CROQ_WARP_MMA_F32(AB, SHAPE, T)                                                              \
  template <>                                                                                      \
  struct warp_mma_op<AB> {                                                                         \
    static __device__ __forceinline__ void run(float* d, const u32* a, const u32* b) {             \
      asm("mma.sync.aligned." SHAPE ".row.col.f32." T "." T ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
          "{%8, %9}, {%0, %1, %2, %3};\n"                                                          \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                         \
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                     \
    }                                                                                              \
  }
CROQ_WARP_MMA_F32(__half, "m16n8k16", "f16");
CROQ_WARP_MMA_F32(__nv_bfloat16, "m16n8k16", "bf16");
CROQ_WARP_MMA_F32(float, "m16n8k8", "tf32");
#undef CROQ_WARP_MMA_F32
#define CROQ_WARP_MMA_S32(AB, T)                                                                     \
  template <>                                                                                      \
  struct warp_mma_op<AB> {                                                                         \
    static __device__ __forceinline__ void run(int* d, const u32* a, const u32* b) {               \
      asm("mma.sync.aligned.m16n8k32.row.col.s32." T "." T ".s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
          "{%8, %9}, {%0, %1, %2, %3};\n"                                                          \
          : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                         \
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                     \
    }                                                                                              \
  }
CROQ_WARP_MMA_S32(signed char, "s8");
CROQ_WARP_MMA_S32(unsigned char, "u8");
#undef CROQ_WARP_MMA_S32
}  // namespace detail

// d += A * B for this warp. A is M x K, element (r, k) at a[r * a_ld + k];
// B is K x N, element (k, n) at b[k * b_ld + n] with BTrans (a row.col rhs,
// [K, N]), else at b[n * b_ld + k] (a row.row rhs, [N, K]). Elements past M,
// N or K read as zero, so every tile shape runs on whole m16n8 blocks; so do
// the elements of A past row a_rows or column a_cols, and of B past its
// tile's row b_rows or column b_cols (a tail tile at a tensor's edge: what
// the tensor holds from the tile's origin). Generic addresses: the tiles may
// be in global or shared memory.
template <int M, int N, int K, bool BTrans, typename D, typename AB>
__device__ __forceinline__ void mma_warp_gather(D* d, const AB* a, long long a_ld, const AB* b, long long b_ld,
                                                int a_rows = M, int a_cols = K, int b_rows = BTrans ? K : N,
                                                int b_cols = BTrans ? N : K) {
  using S = detail::warp_mma_shape<AB>;
  constexpr int MB = (M + 15) / 16, NB = (N + 7) / 8, bits = 32 / S::per_reg;
  const int lane = static_cast<int>(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
  const int m_end = a_rows < M ? a_rows : M, a_k_end = a_cols < K ? a_cols : K;
  const int n_end = BTrans ? (b_cols < N ? b_cols : N) : (b_rows < N ? b_rows : N);
  const int b_k_end = BTrans ? (b_rows < K ? b_rows : K) : (b_cols < K ? b_cols : K);
#pragma unroll 1
  for (int k0 = 0; k0 < K; k0 += S::k) {
#pragma unroll
    for (int mb = 0; mb < MB; ++mb) {
      u32 fa[S::a_regs];
#pragma unroll
      for (int i = 0; i < S::a_regs; ++i) {
        u32 r = 0;
#pragma unroll
        for (int e = 0; e < S::per_reg; ++e) {
          const int row = 16 * mb + S::a_row(g, i), k = k0 + S::a_k(t, i, e);
          if (row < m_end && k < a_k_end) r |= detail::mma_bits(a[row * a_ld + k]) << (bits * e);
        }
        fa[i] = r;
      }
#pragma unroll
      for (int nb = 0; nb < NB; ++nb) {
        u32 fb[S::b_regs];
        const int col = 8 * nb + g;
#pragma unroll
        for (int i = 0; i < S::b_regs; ++i) {
          u32 r = 0;
#pragma unroll
          for (int e = 0; e < S::per_reg; ++e) {
            const int k = k0 + S::b_k(t, i, e);
            if (col < n_end && k < b_k_end) r |= detail::mma_bits(b[BTrans ? k * b_ld + col : col * b_ld + k]) << (bits * e);
          }
          fb[i] = r;
        }
        detail::warp_mma_op<AB>::run(d + 4 * (mb * NB + nb), fa, fb);
      }
    }
  }
}

__device__ __forceinline__ void store_one(int* p, int v) { *p = v; }

// Stores this warp's M x N accumulator to the tile at `tile` (element
// (0, 0); `ld` elements a row), converting to T. Transpose: element (r, c)
// goes to (c, r) (mma.store.transp). Only destination rows < `rows` and
// columns < `cols` are written (tails).
template <int M, int N, bool Transpose = false, typename D, typename T>
__device__ __forceinline__ void store_warp_accum(const D* d, T* tile, long long ld, int rows, int cols) {
  constexpr int MB = (M + 15) / 16, NB = (N + 7) / 8;
  const int lane = static_cast<int>(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < MB * NB * 4; ++j) {
    const int block = j >> 2, i = j & 3;
    const int r = 16 * (block / NB) + g + 8 * (i >> 1), c = 8 * (block % NB) + 2 * t + (i & 1);
    if (r >= M || c >= N) continue;
    const int dr = Transpose ? c : r, dc = Transpose ? r : c;
    if (dr < rows && dc < cols) store_one(tile + dr * ld + dc, d[j]);
  }
}

__device__ __forceinline__ float load_one(const float* p) { return *p; }
__device__ __forceinline__ float load_one(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float load_one(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ int load_one(const int* p) { return *p; }

// Loads this warp's M x N accumulator from a tile (an mma.load used as C);
// elements at or past `rows` or `cols` of the tile read 0.
template <int M, int N, typename D, typename T>
__device__ __forceinline__ void load_warp_accum(D* d, const T* tile, long long ld, int rows, int cols) {
  constexpr int MB = (M + 15) / 16, NB = (N + 7) / 8;
  const int lane = static_cast<int>(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < MB * NB * 4; ++j) {
    const int block = j >> 2, i = j & 3;
    const int r = 16 * (block / NB) + g + 8 * (i >> 1), c = 8 * (block % NB) + 2 * t + (i & 1);
    d[j] = r < M && c < N && r < rows && c < cols ? load_one(tile + r * ld + c) : D(0);
  }
}
}  // namespace croq_dev
#endif  // CROQ_PRELUDE_HOPPER_WARP_CUH
