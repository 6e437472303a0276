// One process drives every GPU of the node, one host thread each, through
// the all-gather + GEMM of tensor parallelism: the rows of A [M, K] are
// sharded over the P GPUs (GPU j holds rows [j M/P, (j+1) M/P)), B is
// sharded by output columns (GPU i holds B_i [N/P, K], C = A * B^T as in
// samples/matmul_persistent.cpp), and GPU i computes C_i = A * B_i^T
// [M, N/P], for which it needs every peer's rows of A. Two ways:
//   allgather_then_gemm  the peers' shards copied in (cudaMemcpyPeerAsync,
//                        over NVLink once peer access is on), then one GEMM
//                        over all M rows;
//   fused                the GEMM split per shard: the local shard's GEMM
//                        starts at once while a copy stream brings the
//                        others, and each shard's GEMM starts as soon as its
//                        copy has arrived (an event between the streams),
//                        so the communication hides behind the multiply.
// The GEMM is samples/matmul_persistent.cpp's kernel (its text read from
// that file, so both run one source). A second Croqtile kernel, peer_copy
// (below), writes into the neighbour GPU's buffer directly through peer access
// (LaunchOptions::peer_access) and is compared with cudaMemcpyPeerAsync.
//
//   multi_gpu_allgather_gemm                   checks both ways and the peer copy
//                                              on small shapes (every element)
//   multi_gpu_allgather_gemm --bench [--size S] [--runs R] [--json FILE]
//       checks at M = N = K = S (default 8192; a random sample of C in
//       double) and times both ways and both copies on all GPUs at once:
//       the median over R runs of the wall time from all GPUs idle to all
//       done. Exit status 1 when a check fails, or on 4 or more GPUs when
//       fused is below 1.1x all-gather-then-GEMM or peer_copy below 0.9x
//       cudaMemcpyPeerAsync.
#include <cuda_runtime.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <croq/croq.hpp>

#include "../bench/sample_source.hpp"
#include "gemm_check.hpp"

static const char* kSource = R"croq(
// dst = src, bytes moved as 8-byte words; either may live on a peer GPU
// (read or written over NVLink). Each thread moves 16 words with all 16 loads issued
// before any store (through its registers, v), so that 128 bytes per
// thread are in flight over the link; each load of a warp reads 256
// consecutive bytes. N is a multiple of 4096.
__co__ void peer_copy(global u64 [N] src, global u64 [N] dst) {
  parallel b by N / 4096 : block
    parallel t by 256 : thread {
      local u64 [16] v;
      foreach k in [16]
        v.at(k) = src.at(b # k # t);
      foreach k in [16]
        dst.at(b # k # t) = v.at(k);
    }
}
)croq";

namespace {

void cuda_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(e));
}
#define CUDA_OK(call) cuda_check((call), #call)

using croq::f16;

struct Shapes {
  std::size_t m, n, k;
};

// One GPU's buffers and streams.
struct Gpu {
  int device = 0;
  cudaStream_t compute = nullptr, copy = nullptr;
  cudaEvent_t done = nullptr;           // the last step's GEMMs have finished
  std::vector<cudaEvent_t> arrived;     // per shard: its copy has landed
  f16* a = nullptr;                     // [M, K]: its own rows, then every peer's
  f16* b = nullptr;                     // [N/P, K]
  f16* c = nullptr;                     // [M, N/P]
  float* copy_src = nullptr;            // [copy_elements]: what the neighbour reads
  float* copy_dst = nullptr;            // [copy_elements]: what it reads into
  // Its rows of A, its B_i (on the host, for the reference).
  croq::spandata<f16> a_host = croq::make_spandata<f16>(1), b_host = croq::make_spandata<f16>(1);
};

struct Setup {
  Shapes shape;
  std::size_t rows = 0, cols = 0;       // M / P and N / P
  std::size_t copy_elements = 0;
  std::vector<Gpu> gpus;
  croq::Kernel gemm, copy;
};

// Runs `body(gpu)` on one thread per GPU (its device current), at once;
// rethrows the first error after every thread has finished.
void on_every_gpu(Setup& s, const std::function<void(Gpu&, std::barrier<>&)>& body) {
  std::barrier<> sync(static_cast<std::ptrdiff_t>(s.gpus.size()));
  std::mutex mutex;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  for (Gpu& g : s.gpus)
    threads.emplace_back([&, gpu = &g] {
      try {
        CUDA_OK(cudaSetDevice(gpu->device));
        body(*gpu, sync);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        sync.arrive_and_drop();  // the others go on without this thread
      }
    });
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

croq::TensorView device_view(void* data, croq::DType dtype, croq::Shape shape, int device) {
  return croq::TensorView::contiguous(data, dtype, shape, croq::MemoryKind::device, device);
}

void allocate(Setup& s, Gpu& g, std::uint64_t seed) {
  const Shapes& sh = s.shape;
  CUDA_OK(cudaStreamCreateWithFlags(&g.compute, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&g.copy, cudaStreamNonBlocking));
  CUDA_OK(cudaEventCreateWithFlags(&g.done, cudaEventDisableTiming));
  g.arrived.resize(s.gpus.size());
  for (cudaEvent_t& e : g.arrived) CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CUDA_OK(cudaMalloc(&g.a, sh.m * sh.k * sizeof(f16)));
  CUDA_OK(cudaMalloc(&g.b, s.cols * sh.k * sizeof(f16)));
  CUDA_OK(cudaMalloc(&g.c, sh.m * s.cols * sizeof(f16)));
  CUDA_OK(cudaMalloc(&g.copy_src, s.copy_elements * sizeof(float)));
  CUDA_OK(cudaMalloc(&g.copy_dst, s.copy_elements * sizeof(float)));
  g.a_host = croq::make_spandata<f16>(s.rows, sh.k);
  g.b_host = croq::make_spandata<f16>(s.cols, sh.k);
  g.a_host.fill_random(-1, 1, seed);
  g.b_host.fill_random(-1, 1, seed + 1);
  const std::size_t own = static_cast<std::size_t>(g.device) * s.rows * sh.k;
  CUDA_OK(cudaMemcpy(g.a + own, g.a_host.data(), s.rows * sh.k * sizeof(f16), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(g.b, g.b_host.data(), s.cols * sh.k * sizeof(f16), cudaMemcpyHostToDevice));
  std::vector<float> pattern(s.copy_elements);
  std::mt19937 rng(static_cast<unsigned>(seed + 2));
  for (float& x : pattern) x = static_cast<float>(rng());
  CUDA_OK(cudaMemcpy(g.copy_src, pattern.data(), pattern.size() * sizeof(float), cudaMemcpyHostToDevice));
}

void release(Gpu& g) {
  for (void* p : {static_cast<void*>(g.a), static_cast<void*>(g.b), static_cast<void*>(g.c),
                  static_cast<void*>(g.copy_src), static_cast<void*>(g.copy_dst)})
    cudaFree(p);
  for (cudaEvent_t e : g.arrived) cudaEventDestroy(e);
  cudaEventDestroy(g.done);
  cudaStreamDestroy(g.compute);
  cudaStreamDestroy(g.copy);
}

// C rows [row0, row0 + rows) = A rows [row0, ...) * B_i^T on `stream`.
void gemm_rows(const Setup& s, const Gpu& g, std::size_t row0, std::size_t rows, cudaStream_t stream) {
  const Shapes& sh = s.shape;
  const croq::Arg args[] = {
      device_view(g.a + row0 * sh.k, croq::DType::f16, {rows, sh.k}, g.device),
      device_view(g.b, croq::DType::f16, {s.cols, sh.k}, g.device),
      device_view(g.c + row0 * s.cols, croq::DType::f16, {rows, s.cols}, g.device)};
  s.gemm.launch(args, croq::LaunchOptions{stream, g.device});
}

// Copies shard j (rows [j M/P, ...) of A) from GPU j into this GPU's A.
void fetch_shard(const Setup& s, const Gpu& g, int j, cudaStream_t stream) {
  const std::size_t offset = static_cast<std::size_t>(j) * s.rows * s.shape.k;
  CUDA_OK(cudaMemcpyPeerAsync(g.a + offset, g.device, s.gpus[j].a + offset, j, s.rows * s.shape.k * sizeof(f16),
                              stream));
}

// The sequence: every peer's shard copied in, then one GEMM over all rows.
void allgather_then_gemm(const Setup& s, const Gpu& g) {
  const int p = static_cast<int>(s.gpus.size());
  for (int step = 1; step < p; ++step) fetch_shard(s, g, (g.device + step) % p, g.compute);
  gemm_rows(s, g, 0, s.shape.m, g.compute);
}

// The overlap: the copies on the copy stream (nearest peer first), the
// local shard's GEMM at once, each other shard's GEMM after its copy.
void fused_allgather_gemm(const Setup& s, const Gpu& g) {
  const int p = static_cast<int>(s.gpus.size());
  // The rows about to be overwritten may still be read by the last step.
  CUDA_OK(cudaStreamWaitEvent(g.copy, g.done, 0));
  for (int step = 1; step < p; ++step) {
    const int j = (g.device + step) % p;
    fetch_shard(s, g, j, g.copy);
    CUDA_OK(cudaEventRecord(g.arrived[j], g.copy));
  }
  gemm_rows(s, g, static_cast<std::size_t>(g.device) * s.rows, s.rows, g.compute);
  for (int step = 1; step < p; ++step) {
    const int j = (g.device + step) % p;
    CUDA_OK(cudaStreamWaitEvent(g.compute, g.arrived[j], 0));
    gemm_rows(s, g, static_cast<std::size_t>(j) * s.rows, s.rows, g.compute);
  }
  CUDA_OK(cudaEventRecord(g.done, g.compute));
}

// Each GPU's copy_dst ends up holding its neighbour's copy_src (the next
// GPU of the ring): with cudaMemcpyPeerAsync, which pulls it, or with the
// Croqtile kernel through peer access, run by the neighbour, which pushes
// its copy_src (its f32 values as pairs, u64 words) into this GPU's
// copy_dst: stores over NVLink are posted, while loads wait for their data
// to come back, so an SM moves more bytes per second by writing remotely.
int neighbour(const Setup& s, const Gpu& g) { return (g.device + 1) % static_cast<int>(s.gpus.size()); }
int previous(const Setup& s, const Gpu& g) {
  const int n = static_cast<int>(s.gpus.size());
  return (g.device + n - 1) % n;
}

void croq_peer_copy(const Setup& s, const Gpu& g) {
  const croq::Arg args[] = {
      device_view(g.copy_src, croq::DType::u64, {s.copy_elements / 2}, g.device),
      device_view(s.gpus[previous(s, g)].copy_dst, croq::DType::u64, {s.copy_elements / 2}, previous(s, g))};
  croq::LaunchOptions options{g.compute, g.device};
  options.peer_access = true;
  s.copy.launch(args, options);
}

void memcpy_peer(const Setup& s, const Gpu& g) {
  CUDA_OK(cudaMemcpyPeerAsync(g.copy_dst, g.device, s.gpus[neighbour(s, g)].copy_src, neighbour(s, g),
                              s.copy_elements * sizeof(float), g.compute));
}

// Checks C_i against A * B_i^T in double: every element of small shapes,
// 4096 random ones of large shapes. Returns the failures' descriptions.
std::string check_c(const Setup& s, const Gpu& g) {
  const Shapes& sh = s.shape;
  std::vector<f16> c(sh.m * s.cols);
  CUDA_OK(cudaMemcpy(c.data(), g.c, c.size() * sizeof(f16), cudaMemcpyDeviceToHost));
  std::vector<std::size_t> picks;
  if (c.size() <= (std::size_t{1} << 20)) {
    for (std::size_t e = 0; e < c.size(); ++e) picks.push_back(e);
  } else {
    std::mt19937_64 rng(1234 + g.device);
    for (int i = 0; i < 4096; ++i) picks.push_back(rng() % c.size());
  }
  std::vector<double> got, want;
  for (std::size_t e : picks) {
    const std::size_t row = e / s.cols, col = e % s.cols;
    const f16* a_row = s.gpus[row / s.rows].a_host.data() + (row % s.rows) * sh.k;
    const f16* b_row = g.b_host.data() + col * sh.k;
    double r = 0;
    for (std::size_t x = 0; x < sh.k; ++x) r += double(float(a_row[x])) * double(float(b_row[x]));
    want.push_back(r);
    got.push_back(float(c[e]));
  }
  const GemmCheck check = compare_with_reference(got, want, 1);
  if (check.passed()) return {};
  return "GPU " + std::to_string(g.device) + ": " + describe(check) + " (element index " +
         std::to_string(picks[check.worst_row]) + ")";
}

bool check_copy(const Setup& s, const Gpu& g) {
  std::vector<float> got(s.copy_elements), want(s.copy_elements);
  CUDA_OK(cudaMemcpy(got.data(), g.copy_dst, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(want.data(), s.gpus[neighbour(s, g)].copy_src, want.size() * sizeof(float),
                     cudaMemcpyDeviceToHost));
  return std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0;
}

// Runs one step of `way` on every GPU (C and the copy target poisoned
// first) and checks the results; prints a line, returns whether it passed.
bool run_and_check(Setup& s, const std::string& name, const std::function<void(const Setup&, const Gpu&)>& way,
                   bool is_copy) {
  std::mutex mutex;
  std::vector<std::string> failures;
  on_every_gpu(s, [&](Gpu& g, std::barrier<>& sync) {
    CUDA_OK(cudaMemset(g.c, 0xff, s.shape.m * s.cols * sizeof(f16)));  // NaN: every element must be written
    CUDA_OK(cudaMemset(g.copy_dst, 0xff, s.copy_elements * sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
    sync.arrive_and_wait();  // every A holds its own rows before anyone reads them
    way(s, g);
    CUDA_OK(cudaDeviceSynchronize());
    sync.arrive_and_wait();  // every GPU done: a copy may have written another GPU's copy_dst
    std::string problem = is_copy ? (check_copy(s, g) ? "" : "GPU " + std::to_string(g.device) + ": copy differs")
                                  : check_c(s, g);
    std::lock_guard<std::mutex> lock(mutex);
    if (!problem.empty()) failures.push_back(problem);
  });
  std::cout << name << " [M " << s.shape.m << ", N " << s.shape.n << ", K " << s.shape.k << "] on " << s.gpus.size()
            << " GPUs: " << (failures.empty() ? "matches the host reference" : "WRONG") << "\n";
  for (const std::string& f : failures) std::cout << "  " << f << "\n";
  return failures.empty();
}

// The median over `runs` (after one warm-up) of the wall time in ms of one
// step of `way` on every GPU at once: all GPUs idle, `reps` steps enqueued
// by each GPU's thread, all GPUs done.
double time_way(Setup& s, const std::function<void(const Setup&, const Gpu&)>& way, int runs, int reps) {
  std::vector<double> ms;
  std::chrono::steady_clock::time_point start;
  on_every_gpu(s, [&](Gpu& g, std::barrier<>& sync) {
    const bool first = &g == &s.gpus.front();
    for (int run = -1; run < runs; ++run) {
      CUDA_OK(cudaDeviceSynchronize());
      sync.arrive_and_wait();
      if (first) start = std::chrono::steady_clock::now();
      sync.arrive_and_wait();
      for (int r = 0; r < reps; ++r) way(s, g);
      CUDA_OK(cudaDeviceSynchronize());
      sync.arrive_and_wait();
      if (first && run >= 0)
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / reps);
    }
  });
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

Setup make_setup(const Shapes& shape, int gpus, std::size_t copy_elements) {
  if (shape.m % gpus != 0 || shape.n % gpus != 0 || (shape.n / gpus) % 8 != 0 || shape.k % 8 != 0)
    throw std::runtime_error("M and N must divide by the GPU count, N / GPUs and K by 8 (16-byte rows)");
  Setup s;
  s.shape = shape;
  s.rows = shape.m / gpus;
  s.cols = shape.n / gpus;
  s.copy_elements = copy_elements;
  s.gpus.resize(static_cast<std::size_t>(gpus));
  for (int i = 0; i < gpus; ++i) s.gpus[i].device = i;
  on_every_gpu(s, [&](Gpu& g, std::barrier<>&) { allocate(s, g, 1000 * (g.device + 1)); });
  return s;
}

void free_setup(Setup& s) {
  on_every_gpu(s, [&](Gpu& g, std::barrier<>&) { release(g); });
}

struct Args {
  bool bench = false;
  std::size_t size = 8192;
  int runs = 15;
  std::string json;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--bench") a.bench = true;
    else if (arg == "--size") a.size = std::stoul(value());
    else if (arg == "--runs") a.runs = std::stoi(value());
    else if (arg == "--json") a.json = value();
    else throw std::runtime_error("unknown argument " + arg + " (--bench, --size S, --runs R, --json FILE)");
  }
  if (a.runs < 1) throw std::runtime_error("--runs must be at least 1");
  return a;
}

int bench(Setup& s, const Args& args) {
  const int p = static_cast<int>(s.gpus.size());
  const double sequence_ms = time_way(s, allgather_then_gemm, args.runs, 5);
  const double fused_ms = time_way(s, fused_allgather_gemm, args.runs, 5);
  const double memcpy_ms = time_way(s, memcpy_peer, args.runs, 5);
  const double kernel_ms = time_way(s, croq_peer_copy, args.runs, 5);
  const double flops = 2.0 * double(s.shape.m) * double(s.cols) * double(s.shape.k);  // per GPU
  const double gather_bytes = double(p - 1) * double(s.rows) * double(s.shape.k) * sizeof(f16);
  const double copy_bytes = double(s.copy_elements) * sizeof(float);
  const double gemm_ratio = sequence_ms / fused_ms, copy_ratio = memcpy_ms / kernel_ms;
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("all-gather (%.0f MB into each GPU) + GEMM, M = N = K = %zu, f16, %d x %s, median of %d runs:\n",
              gather_bytes / 1e6, s.shape.m, p, prop.name, args.runs);
  std::printf("  allgather_then_gemm  %8.3f ms  (%6.1f TFLOP/s per GPU)\n", sequence_ms, flops / sequence_ms / 1e9);
  std::printf("  fused                %8.3f ms  (%6.1f TFLOP/s per GPU)\n", fused_ms, flops / fused_ms / 1e9);
  std::printf("  fused speed-up       %8.3fx (acceptance on 4 GPUs: >= 1.1x)\n", gemm_ratio);
  std::printf("peer copy, each GPU reads %.0f MB from its neighbour, all at once:\n", copy_bytes / 1e6);
  std::printf("  cudaMemcpyPeerAsync  %8.3f ms  (%6.1f GB/s per GPU)\n", memcpy_ms, copy_bytes / memcpy_ms / 1e6);
  std::printf("  croq peer_copy       %8.3f ms  (%6.1f GB/s per GPU)\n", kernel_ms, copy_bytes / kernel_ms / 1e6);
  std::printf("  peer_copy / memcpy   %8.3fx (acceptance: >= 0.9x)\n", copy_ratio);
  if (!args.json.empty()) {
    std::ofstream out(args.json);
    out << "{\"gpus\": " << p << ", \"card\": \"" << prop.name << "\", \"m\": " << s.shape.m
        << ", \"n\": " << s.shape.n << ", \"k\": " << s.shape.k
        << ", \"runs\": " << args.runs << ", \"allgather_then_gemm_ms\": " << sequence_ms
        << ", \"fused_ms\": " << fused_ms << ", \"fused_speedup\": " << gemm_ratio
        << ", \"copy_bytes\": " << copy_bytes << ", \"memcpy_peer_ms\": " << memcpy_ms
        << ", \"croq_peer_copy_ms\": " << kernel_ms << ", \"peer_copy_ratio\": " << copy_ratio << "}\n";
  }
  bool ok = copy_ratio >= 0.9;
  if (p >= 4 && s.shape.m >= 8192) ok = ok && gemm_ratio >= 1.1;
  std::cout << (ok ? "bench: acceptance met\n" : "bench: BELOW the acceptance figures\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  croq::CompileOptions gemm_options;
  gemm_options.source_name = "matmul_persistent.co";
  std::string why;
  const bool gpu = croq::cuda_available(&why);
  int sms = 132;
  if (gpu) CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  gemm_options.defines["NUM_SMS"] = std::int64_t{sms};  // one persistent block per SM
  const croq::Kernel gemm = croq::compile(croq::bench::sample_source("matmul_persistent"), gemm_options);
  const croq::Kernel copy = croq::compile(kSource);
  if (!gpu) {
    std::cout << "multi_gpu_allgather_gemm: compiled `" << gemm.name() << "` and `" << copy.name()
              << "`, but running them needs a CUDA GPU (" << why << ")\n";
    return 0;
  }
  const int count = croq::device_count();
  if (count < 2) {
    std::cout << "multi_gpu_allgather_gemm: needs at least 2 CUDA GPUs (" << count << " present); skipped\n";
    return 0;
  }
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) croq::enable_peer_access(i, j);

  const std::vector<Shapes> shapes =
      args.bench ? std::vector<Shapes>{{args.size, args.size, args.size}}
                 : std::vector<Shapes>{{1024, 1024, 1024}, {1536, 1280, 832}};
  bool ok = true;
  int status = 0;
  for (const Shapes& shape : shapes) {
    Setup s = make_setup(shape, count, args.bench ? std::size_t{64} << 20 : std::size_t{1} << 22);
    s.gemm = gemm;
    s.copy = copy;
    ok = run_and_check(s, "allgather_then_gemm", allgather_then_gemm, false) && ok;
    ok = run_and_check(s, "fused_allgather_gemm", fused_allgather_gemm, false) && ok;
    ok = run_and_check(s, "croq peer_copy", croq_peer_copy, true) && ok;
    if (ok && args.bench) status = bench(s, args);
    free_setup(s);
  }
  if (!ok) {
    std::cout << "multi_gpu_allgather_gemm: FAILED\n";
    return 1;
  }
  std::cout << "Test Passed\n";
  return status;
} catch (const std::exception& e) {
  std::cerr << "multi_gpu_allgather_gemm: " << e.what() << "\n";
  return 1;
}
