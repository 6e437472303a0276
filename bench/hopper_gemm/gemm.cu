// Hand-written Hopper GEMM built only from the croq device prelude
// (croq_dev::*, pasted in as croq_hopper_prelude.cuh by run.sh), in the shape
// the compiler should emit for a warp-specialized matmul:
//
//   C[M, N] = A[M, K] * B[N, K]^T   (f16 or bf16 in, fp32 accumulate, C in A's type)
//
// - one producer warpgroup: one elected thread streams A and B tiles with TMA
//   (128B swizzle) into a ring of STAGES shared stages guarded by full/empty
//   mbarriers;
// - two consumer warpgroups: each computes 64 x BN of the 128 x BN tile with
//   wgmma m64n{BN}k16 (both operands K-major from shared memory), keeps one
//   WGMMA group in flight, and frees a stage once the group reading it is done;
// - setmaxnreg moves registers from the producer (40) to the consumers (232);
// - epilogue: accumulators straight to global (bounds-checked, converted),
//   or (TMA_STORE) through a 128B-swizzled shared tile and TMA stores, so the
//   consumers go on with the next tile while the copy engine writes C;
// - variants: persistent CTAs walking tiles in grouped (L2-friendly) order,
//   and 2-CTA clusters that share the B tile through TMA multicast.
//
// Checks every variant against a naive reference on a ragged shape and
// against cuBLAS on the benchmark shapes, then prints TFLOP/s and the ratio
// to cuBLAS measured in the same process.
//
// Usage: gemm_bench [variant ...]   (default: all; `list` prints them)
#include "croq_hopper_prelude.cuh"

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace croq_dev;

[[noreturn]] void die(const char* file, int line, const char* call, const char* why) {
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, why);
  std::exit(1);
}
const char* cu_error(CUresult r) {
  const char* msg = nullptr;
  cuGetErrorString(r, &msg);
  return msg ? msg : "unknown driver error";
}
#define CHECK_CUDA(x) \
  do { if (cudaError_t e_ = (x); e_ != cudaSuccess) die(__FILE__, __LINE__, #x, cudaGetErrorString(e_)); } while (0)
#define CHECK_CU(x) \
  do { if (CUresult e_ = (x); e_ != CUDA_SUCCESS) die(__FILE__, __LINE__, #x, cu_error(e_)); } while (0)
#define CHECK_CUBLAS(x) \
  do { if (cublasStatus_t e_ = (x); e_ != CUBLAS_STATUS_SUCCESS) die(__FILE__, __LINE__, #x, cublasGetStatusString(e_)); } while (0)

namespace {

constexpr int BM = 128;            // rows of C per CTA (two 64-row consumer halves)
constexpr int BK = 64;             // K per stage: 64 x 2 bytes = one 128-byte swizzle row
constexpr int kConsumers = 2;      // consumer warpgroups
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr u32 kSwizzle = 128;

constexpr int kStoreBox = 64;      // C is TMA-stored in 64 x 64 boxes (128-byte rows)

template <int BN, int STAGES, bool TMA_STORE>
struct Layout {
  static constexpr int a_bytes = BM * BK * 2;
  static constexpr int b_bytes = BN * BK * 2;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  // Per consumer warpgroup: its 64 x BN tile of C as BN/64 swizzled boxes.
  static constexpr int c_bytes = TMA_STORE ? kConsumers * 64 * BN * 2 : 0;
  // 1024 bytes of slack to align the ring for 128B swizzle, then barriers.
  static constexpr int smem_bytes = 1024 + STAGES * stage_bytes + c_bytes + 2 * STAGES * 8;
};

// Tile order: units (cluster tiles of CLUSTER*BM x BN) go down `group` unit
// rows before moving right, so CTAs running together share A rows and B
// columns in L2.
__device__ __forceinline__ void unit_coords(int u, int units_m, int units_n, int group, int& um, int& un) {
  const int per_group = group * units_n;
  const int first_m = (u / per_group) * group;
  const int rows = min(units_m - first_m, group);
  const int r = u % per_group;
  um = first_m + r % rows;
  un = r / rows;
}

// Origin in C of this CTA's tile of unit u (CTA `rank` of the cluster takes
// the rank-th BM rows of the cluster tile).
template <int BN, int CLUSTER>
__device__ __forceinline__ void tile_origin(int u, int units_m, int units_n, int group, u32 rank, int& m0, int& n0) {
  int um, un;
  unit_coords(u, units_m, units_n, group, um, un);
  m0 = (um * CLUSTER + static_cast<int>(rank)) * BM;
  n0 = un * BN;
}

// Position in the ring of stages: the stage and the parity of its use.
template <int STAGES>
struct RingPos {
  int stage = 0;
  u32 phase = 0;
  __device__ __forceinline__ void next() {
    if (++stage == STAGES) {
      stage = 0;
      phase ^= 1;
    }
  }
};

template <typename T, int BN, int STAGES, int CLUSTER, bool PERSISTENT, bool TMA_STORE>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_kernel(const __grid_constant__ croq_tensor_map map_a, const __grid_constant__ croq_tensor_map map_b,
                const __grid_constant__ croq_tensor_map map_c, T* c, int m, int n, int k, int group) {
  using L = Layout<BN, STAGES, TMA_STORE>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + (1024 - smem_addr(smem_raw) % 1024) % 1024;
  T* a_ring = reinterpret_cast<T*>(smem);                             // STAGES x [BM][BK]
  T* b_ring = reinterpret_cast<T*>(smem + STAGES * L::a_bytes);       // STAGES x [BN][BK]
  unsigned char* c_stage = smem + STAGES * L::stage_bytes;                       // TMA_STORE only
  u64* full = reinterpret_cast<u64*>(smem + STAGES * L::stage_bytes + L::c_bytes);  // TMA landed
  u64* empty = full + STAGES;                                          // consumers done

  const u32 rank = CLUSTER > 1 ? cluster_ctarank() : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);                       // the producer's arrive_expect_tx
      mbar_init(&empty[s], kConsumers * CLUSTER);   // every consumer of every CTA reading it
    }
    fence_barrier_init();
  }
  if (CLUSTER > 1) {
    cluster_sync();  // peers arrive on / multicast into our barriers
  } else {
    __syncthreads();
  }

  const int units_m = (m + BM * CLUSTER - 1) / (BM * CLUSTER);
  const int units_n = (n + BN - 1) / BN;
  const int units = units_m * units_n;
  const int k_blocks = (k + BK - 1) / BK;
  const int first_unit = blockIdx.x / CLUSTER;
  const int unit_stride = PERSISTENT ? gridDim.x / CLUSTER : units;

  if (warpgroup_idx() == 0) {
    // Producer warpgroup: one thread issues all TMA.
    setmaxnreg_dec<40>();
    if (warp_idx() == 0) {
      if (elect_one_sync()) {
        tma_prefetch_descriptor(&map_a);
        tma_prefetch_descriptor(&map_b);
        RingPos<STAGES> pos;
        for (int u = first_unit; u < units; u += unit_stride) {
          int m0, n0;
          tile_origin<BN, CLUSTER>(u, units_m, units_n, group, rank, m0, n0);
          for (int kb = 0; kb < k_blocks; ++kb) {
            const int stage = pos.stage;
            // Wait until every consumer (of every CTA the B multicast writes)
            // has released this stage.
            mbar_wait(&empty[stage], pos.phase ^ 1);
            mbar_arrive_expect_tx(&full[stage], L::stage_bytes);
            tma_load_2d(a_ring + stage * BM * BK, &map_a, &full[stage], kb * BK, m0);
            if (CLUSTER == 1) {
              tma_load_2d(b_ring + stage * BN * BK, &map_b, &full[stage], kb * BK, n0);
            } else {
              // Each CTA loads 1/CLUSTER of B's rows and multicasts it to all.
              constexpr int rows = BN / CLUSTER;
              tma_load_multicast_2d(b_ring + stage * BN * BK + rank * rows * BK, &map_b, &full[stage],
                                    static_cast<u16>((1u << CLUSTER) - 1), kb * BK, n0 + static_cast<int>(rank) * rows);
            }
            pos.next();
          }
        }
      }
      __syncwarp();
    }
  } else {
    setmaxnreg_inc<232>();
    const int wg = warpgroup_idx() - 1;  // which 64-row half of the tile
    const int t = static_cast<int>(threadIdx.x % 128);
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
    // Frees a stage: one thread per warpgroup per CTA of the cluster.
    auto release = [&](int s) {
      if (CLUSTER == 1) {
        if (t == 0) mbar_arrive(&empty[s]);
      } else if (t < CLUSTER) {
        mbar_arrive_cluster(&empty[s], static_cast<u32>(t));
      }
    };
    RingPos<STAGES> pos;
    for (int u = first_unit; u < units; u += unit_stride) {
      int m0, n0;
      tile_origin<BN, CLUSTER>(u, units_m, units_n, group, rank, m0, n0);
      int prev = -1;
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int stage = pos.stage;
        mbar_wait(&full[stage], pos.phase);
        const u64 desc_a = make_kmajor_desc<kSwizzle>(a_ring + stage * BM * BK + wg * 64 * BK);
        const u64 desc_b = make_kmajor_desc<kSwizzle>(b_ring + stage * BN * BK);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk)
          wgmma_m64nNk16<BN, T>(d, desc_advance(desc_a, kk * 32), desc_advance(desc_b, kk * 32),
                                (kb > 0 || kk > 0) ? 1 : 0);
        wgmma_commit_group();
        // Keep this group in flight; the previous one (and its stage) is done.
        wgmma_wait_group<1>();
        if (prev >= 0) release(prev);
        prev = stage;
        pos.next();
      }
      wgmma_wait_group<0>();
      fence_accum(d);
      if (prev >= 0) release(prev);
      const int row0 = m0 + wg * 64;
      if constexpr (!TMA_STORE) {
        store_accum_global<BN>(d, c + static_cast<long long>(row0) * n + n0, n, m - row0, n - n0);
      } else {
        // This warpgroup's staging tile: BN/64 boxes of 64 rows x 128 bytes,
        // written in TMA's 128B-swizzled layout (conflict-free: the 8 rows a
        // store instruction touches land in 8 different 16-byte chunks).
        unsigned char* mine = c_stage + wg * 64 * BN * 2;
        const int bar_id = 1 + wg;
        if (t == 0) bulk_wait_group_read<0>();  // the previous tile's stores have read it
        named_barrier_sync(bar_id, 128);
        for_each_accum_pair<BN>(d, [&](int r, int col, float v0, float v1) {
          unsigned char* p = mine + (col / kStoreBox) * (64 * 128) +
                             swizzle_tile_offset(r, (col % kStoreBox) * 2, 128, kSwizzle);
          store_pair(reinterpret_cast<T*>(p), v0, v1);
        });
        fence_proxy_async_shared();  // generic writes -> visible to the TMA store
        named_barrier_sync(bar_id, 128);
        if (t == 0) {
#pragma unroll
          for (int j = 0; j < BN / kStoreBox; ++j)
            tma_store_2d(&map_c, mine + j * 64 * 128, n0 + j * kStoreBox, row0);  // clipped at the edges
          bulk_commit_group();
        }
      }
    }
    if constexpr (TMA_STORE) {
      if (t == 0) bulk_wait_group<0>();
    }
  }
  if (CLUSTER > 1) cluster_sync();  // no CTA leaves while a peer may still write it
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

template <typename T>
struct TypeInfo;
template <>
struct TypeInfo<__half> {
  static constexpr CUtensorMapDataType tma = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  static constexpr cudaDataType_t blas = CUDA_R_16F;
  static constexpr const char* name = "f16";
};
template <>
struct TypeInfo<__nv_bfloat16> {
  static constexpr CUtensorMapDataType tma = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  static constexpr cudaDataType_t blas = CUDA_R_16BF;
  static constexpr const char* name = "bf16";
};

// 2D map over a row-major [rows][cols] matrix, box [box_rows][box_cols], 128B swizzle.
template <typename T>
croq_tensor_map make_map(const T* base, int rows, int cols, int box_rows, int box_cols = BK) {
  static_assert(sizeof(croq_tensor_map) == sizeof(CUtensorMap), "croq_tensor_map must match CUtensorMap");
  CUtensorMap map;
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(T)};
  cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  cuuint32_t elem_strides[2] = {1, 1};
  CHECK_CU(cuTensorMapEncodeTiled(&map, TypeInfo<T>::tma, 2, const_cast<T*>(base), dims, strides, box, elem_strides,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  croq_tensor_map out;
  std::memcpy(&out, &map, sizeof(out));
  return out;
}

template <typename T>
__global__ void fill_random(T* p, long long count, unsigned seed) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ (seed * 0x9E3779B9u) ^ static_cast<unsigned>(i >> 32);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    p[i] = static_cast<T>((x >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}

// fp32 reference: C[m][n] = sum_k A[m][k] * B[n][k].
template <typename T>
__global__ void naive_gemm(const T* a, const T* b, T* c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y;
  if (col >= n || row >= m) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i)
    acc += static_cast<float>(a[static_cast<long long>(row) * k + i]) * static_cast<float>(b[static_cast<long long>(col) * k + i]);
  c[static_cast<long long>(row) * n + col] = static_cast<T>(acc);
}

// Counts elements with |x - ref| > tol * (|ref| + 1) and the largest |x - ref|.
template <typename T>
__global__ void compare(const T* x, const T* ref, long long count, float tol, unsigned long long* bad, float* max_err) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float a = static_cast<float>(x[i]), r = static_cast<float>(ref[i]);
    float e = fabsf(a - r);
    if (!(e <= tol * (fabsf(r) + 1.f))) atomicAdd(bad, 1ull);
    atomicMax(reinterpret_cast<int*>(max_err), __float_as_int(e != e ? INFINITY : e));
  }
}

// cudaDeviceSynchronize with a deadline: a pipeline bug shows up as a hang,
// and a report beats a killed process. Exits (the context is lost) on timeout.
void sync_or_die(const char* what, double seconds = 20.0) {
  cudaEvent_t done;
  CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventRecord(done));
  auto start = std::chrono::steady_clock::now();
  cudaError_t st;
  while ((st = cudaEventQuery(done)) == cudaErrorNotReady) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      std::printf("  TIMEOUT: %s did not finish in %.0f s (pipeline hang)\n", what, seconds);
      std::fflush(stdout);
      std::_Exit(2);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK_CUDA(st);
  CHECK_CUDA(cudaEventDestroy(done));
  CHECK_CUDA(cudaDeviceSynchronize());
}

struct Check {
  unsigned long long bad;
  float max_err;
};

template <typename T>
Check check(const T* x, const T* ref, long long count) {
  unsigned long long* bad;
  float* max_err;
  CHECK_CUDA(cudaMalloc(&bad, sizeof(*bad)));
  CHECK_CUDA(cudaMalloc(&max_err, sizeof(*max_err)));
  CHECK_CUDA(cudaMemset(bad, 0, sizeof(*bad)));
  CHECK_CUDA(cudaMemset(max_err, 0, sizeof(*max_err)));
  compare<<<1024, 256>>>(x, ref, count, 0.02f, bad, max_err);
  CHECK_CUDA(cudaGetLastError());
  Check out{};
  CHECK_CUDA(cudaMemcpy(&out.bad, bad, sizeof(*bad), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&out.max_err, max_err, sizeof(*max_err), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(bad));
  CHECK_CUDA(cudaFree(max_err));
  return out;
}

template <typename T>
struct Problem {
  int m, n, k;
  T *a, *b, *c, *ref;
  Problem(int m_, int n_, int k_) : m(m_), n(n_), k(k_) {
    CHECK_CUDA(cudaMalloc(&a, sizeof(T) * m * static_cast<size_t>(k)));
    CHECK_CUDA(cudaMalloc(&b, sizeof(T) * n * static_cast<size_t>(k)));
    CHECK_CUDA(cudaMalloc(&c, sizeof(T) * m * static_cast<size_t>(n)));
    CHECK_CUDA(cudaMalloc(&ref, sizeof(T) * m * static_cast<size_t>(n)));
    fill_random<<<1024, 256>>>(a, static_cast<long long>(m) * k, 1);
    fill_random<<<1024, 256>>>(b, static_cast<long long>(n) * k, 2);
    CHECK_CUDA(cudaGetLastError());
  }
  ~Problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(ref);
  }
  long long c_count() const { return static_cast<long long>(m) * n; }
};

template <typename T>
void cublas_gemm(cublasHandle_t h, const Problem<T>& p, T* out) {
  // Column-major view: C^T[N x M] = B[N x K] * A^T, i.e. op(B) = T, op(A) = N.
  const float alpha = 1.f, beta = 0.f;
  CHECK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, p.n, p.m, p.k, &alpha, p.b, TypeInfo<T>::blas, p.k, p.a,
                            TypeInfo<T>::blas, p.k, &beta, out, TypeInfo<T>::blas, p.n, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

// Median time of `iters` runs of f (after warm-up), in milliseconds.
template <typename F>
double median_ms(F&& f, int iters) {
  for (int i = 0; i < 3; ++i) f();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(iters + 1);
  for (auto& e : ev) CHECK_CUDA(cudaEventCreate(&e));
  CHECK_CUDA(cudaEventRecord(ev[0]));
  for (int i = 0; i < iters; ++i) {
    f();
    CHECK_CUDA(cudaEventRecord(ev[i + 1]));
  }
  CHECK_CUDA(cudaEventSynchronize(ev[iters]));
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) CHECK_CUDA(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]));
  for (auto& e : ev) CHECK_CUDA(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return ms[iters / 2];
}

struct Variant {
  const char* name;
  int bn, stages, cluster;
  bool persistent, tma_store;
  int group;  // tile order: BM-row tiles per group (see unit_coords)
  // Launch the variant's kernel for f16 / bf16 (encodes the TMA maps once per problem).
  void (*launch_f16)(const Problem<__half>&, int, cudaStream_t);
  void (*launch_bf16)(const Problem<__nv_bfloat16>&, int, cudaStream_t);
};

int g_num_sms = 0;

template <typename T, int BN, int STAGES, int CLUSTER, bool PERSISTENT, bool TMA_STORE>
void launch(const Problem<T>& p, int group_tiles, cudaStream_t stream) {
  using L = Layout<BN, STAGES, TMA_STORE>;
  auto kernel = gemm_kernel<T, BN, STAGES, CLUSTER, PERSISTENT, TMA_STORE>;
  static bool configured = false;
  static int grid_persistent = 0;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CLUSTER;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = L::smem_bytes;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = CLUSTER > 1 ? 1 : 0;
  if (!configured) {
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::smem_bytes));
    // As many CTAs (whole clusters) as can be resident at once.
    cfg.gridDim = dim3(CLUSTER * 1024);
    int clusters = g_num_sms / CLUSTER;
    if (CLUSTER > 1) CHECK_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
    grid_persistent = clusters * CLUSTER;
    configured = true;
    if (PERSISTENT) std::printf("  (persistent grid: %d CTAs in %d clusters of %d)\n", grid_persistent, clusters, CLUSTER);
  }
  const int units = ((p.m + BM * CLUSTER - 1) / (BM * CLUSTER)) * ((p.n + BN - 1) / BN);
  const int grid = PERSISTENT ? std::min(units * CLUSTER, grid_persistent) : units * CLUSTER;
  cfg.gridDim = dim3(grid);
  // The group in units of cluster tiles.
  const int group = std::max(1, group_tiles / CLUSTER);
  static croq_tensor_map map_a, map_b, map_c;
  static const void* cached_a = nullptr;
  static const void* cached_b = nullptr;
  static int cached_dims[3] = {0, 0, 0};
  if (cached_a != p.a || cached_b != p.b || cached_dims[0] != p.m || cached_dims[1] != p.n || cached_dims[2] != p.k) {
    map_a = make_map(p.a, p.m, p.k, BM);
    map_b = make_map(p.b, p.n, p.k, BN / CLUSTER);
    map_c = TMA_STORE ? make_map(p.c, p.m, p.n, 64, kStoreBox) : croq_tensor_map{};
    cached_a = p.a;
    cached_b = p.b;
    cached_dims[0] = p.m;
    cached_dims[1] = p.n;
    cached_dims[2] = p.k;
  }
  CHECK_CUDA(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p.c, p.m, p.n, p.k, group));
}

#define VARIANT(name, bn, stages, cluster, persistent, tma_store, group)                                    \
  Variant {                                                                                                \
    name, bn, stages, cluster, persistent, tma_store, group,                                               \
        launch<__half, bn, stages, cluster, persistent, tma_store>,                                        \
        launch<__nv_bfloat16, bn, stages, cluster, persistent, tma_store>                                  \
  }

// The first is the headline configuration; the rest show what each choice
// buys (docs/how-to/benchmarks.md has the figures).
const Variant kVariants[] = {
    VARIANT("128x256_s3_cluster2_persistent_tmastore", 256, 3, 2, true, true, 16),
    VARIANT("128x256_s3_persistent_tmastore", 256, 3, 1, true, true, 16),
    VARIANT("128x256_s3_persistent_tmastore_g8", 256, 3, 1, true, true, 8),
    VARIANT("128x256_s3_persistent_tmastore_g32", 256, 3, 1, true, true, 32),
    VARIANT("128x256_s4", 256, 4, 1, false, false, 16),
    VARIANT("128x256_s4_persistent", 256, 4, 1, true, false, 16),
    VARIANT("128x256_s4_cluster2_persistent", 256, 4, 2, true, false, 16),
    VARIANT("128x128_s6_persistent", 128, 6, 1, true, false, 16),
};

template <typename T>
void (*launcher(const Variant& v))(const Problem<T>&, int, cudaStream_t) {
  if constexpr (std::is_same_v<T, __half>) {
    return v.launch_f16;
  } else {
    return v.launch_bf16;
  }
}

// Ragged shape (tails in M, N and K; odd ldc unless C is TMA-stored, whose
// row pitch must be a multiple of 16 bytes) against the naive reference.
template <typename T>
bool check_ragged(const Variant& v) {
  Problem<T> p(1000, v.tma_store ? 1000 : 999, 1032);
  CHECK_CUDA(cudaMemset(p.c, 0xFF, sizeof(T) * p.c_count()));
  launcher<T>(v)(p, v.group, nullptr);
  CHECK_CUDA(cudaGetLastError());
  sync_or_die("ragged GEMM");
  naive_gemm<<<dim3((p.n + 127) / 128, p.m), 128>>>(p.a, p.b, p.ref, p.m, p.n, p.k);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  Check r = check(p.c, p.ref, p.c_count());
  std::printf("  %-32s %-4s ragged %dx%dx%d vs naive: %s (bad %llu, max |err| %.4g)\n", v.name, TypeInfo<T>::name, p.m,
              p.n, p.k, r.bad == 0 ? "PASS" : "FAIL", r.bad, r.max_err);
  return r.bad == 0;
}

template <typename T>
bool bench(const Variant& v, cublasHandle_t h, int size) {
  Problem<T> p(size, size, size);
  const int iters = size >= 8192 ? 20 : 50;
  cublas_gemm(h, p, p.ref);
  CHECK_CUDA(cudaMemset(p.c, 0xFF, sizeof(T) * p.c_count()));
  launcher<T>(v)(p, v.group, nullptr);
  CHECK_CUDA(cudaGetLastError());
  sync_or_die("GEMM");
  Check r = check(p.c, p.ref, p.c_count());
  const double flops = 2.0 * size * static_cast<double>(size) * size;
  double t_blas = median_ms([&] { cublas_gemm(h, p, p.ref); }, iters);
  double t_ours = median_ms([&] { launcher<T>(v)(p, v.group, nullptr); }, iters);
  double t_blas2 = median_ms([&] { cublas_gemm(h, p, p.ref); }, iters);
  t_blas = std::min(t_blas, t_blas2);
  const double tf_ours = flops / t_ours / 1e9, tf_blas = flops / t_blas / 1e9;
  std::printf("  %-32s %-4s %5d^3: ours %7.1f TFLOP/s (%.3f ms)  cuBLAS %7.1f TFLOP/s  ratio %.3f  check vs cuBLAS: %s "
              "(bad %llu, max |err| %.4g)\n",
              v.name, TypeInfo<T>::name, size, tf_ours, t_ours, tf_blas, tf_ours / tf_blas,
              r.bad == 0 ? "PASS" : "FAIL", r.bad, r.max_err);
  std::fflush(stdout);
  return r.bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> wanted(argv + 1, argv + argc);
  if (!wanted.empty() && wanted[0] == "list") {
    for (const Variant& v : kVariants) std::printf("%s\n", v.name);
    return 0;
  }
  CHECK_CU(cuInit(0));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  g_num_sms = prop.multiProcessorCount;
  std::printf("device: %s, %d SMs\n", prop.name, g_num_sms);
  cublasHandle_t h;
  CHECK_CUBLAS(cublasCreate(&h));
  bool ok = true;
  for (const Variant& v : kVariants) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), v.name) == wanted.end()) continue;
    std::printf("variant %s: tile 128x%d, %d stages, cluster %d, %s, epilogue %s, groups of %d tile rows\n",
                v.name, v.bn, v.stages, v.cluster, v.persistent ? "persistent" : "one tile per CTA",
                v.tma_store ? "smem + TMA store" : "direct to global", v.group);
    std::fflush(stdout);
    for (int size : {4096, 8192}) {
      ok &= bench<__half>(v, h, size);
      ok &= bench<__nv_bfloat16>(v, h, size);
    }
    // Last: tiles hanging over every edge (a hang here leaves the numbers above).
    ok &= check_ragged<__half>(v);
    ok &= check_ragged<__nv_bfloat16>(v);
  }
  CHECK_CUBLAS(cublasDestroy(h));
  std::printf(ok ? "ALL CHECKS PASSED\n" : "SOME CHECKS FAILED\n");
  return ok ? 0 : 1;
}
