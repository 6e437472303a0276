// Part of croq/choreo.hpp (include that): calling __co__ functions from
// host code (what `croq host` generates), result verification and timing.
#pragma once

#include <cctype>
#include <cstdlib>
#include <string>

#include "croq/choreo.hpp"

namespace choreo {

// ------------------------------------------------------ calling __co__ code

namespace host {

// Exit statuses of a generated program when a __co__ call fails; the
// conformance runner tells them apart.
inline constexpr int kExitCompileError = 3;   // croq::CompileError: the source or a specialization
inline constexpr int kExitArgumentError = 4;  // croq::ArgumentError: arguments that do not fit
inline constexpr int kExitCudaError = 5;      // croq::CudaError: no device, or a driver call failed
inline constexpr int kExitOtherError = 6;     // any other croq::Error

[[noreturn]] inline void fail(const char* entry, const std::exception& e) {
  flush_output();
  int status = kExitOtherError;
  const char* what = "failed";
  if (dynamic_cast<const croq::CompileError*>(&e)) {
    status = kExitCompileError;
    what = "does not compile";
  } else if (dynamic_cast<const croq::ArgumentError*>(&e)) {
    status = kExitArgumentError;
    what = "rejected its arguments";
  } else if (dynamic_cast<const croq::CudaError*>(&e)) {
    status = kExitCudaError;
    what = "could not run on the device";
  }
  std::fprintf(stderr, "croq host: __co__ function `%s` %s:\n%s\n", entry, what, e.what());
  std::exit(status);
}

// The compiled __co__ function `entry` of `source` (compiled on first use).
inline croq::Kernel kernel(const char* source, const char* source_name, const char* entry) {
  struct Compiled {
    const char* source;
    std::string entry;
    croq::Kernel kernel;  // copies share the compiled state
  };
  static std::vector<Compiled> compiled;  // few entries: a linear search is enough
  for (const Compiled& c : compiled)
    if (c.source == source && c.entry == entry) return c.kernel;
  croq::CompileOptions options;
  options.entry = entry;
  options.source_name = source_name;
  try {
    compiled.push_back({source, entry, croq::compile(source, options)});
  } catch (const croq::Error& e) {
    fail(entry, e);
  }
  return compiled.back().kernel;
}

// With CROQ_HOST_CHECK_ONLY=1 in the environment, a generated program
// compiles each of its __co__ functions (croq::compile: no device needed)
// and exits before main: 0 when all compile, kExitCompileError with the
// first failure's diagnostics otherwise.
inline bool check_only_if_asked(const char* source, const char* source_name,
                                std::initializer_list<const char*> entries) {
  const char* flag = std::getenv("CROQ_HOST_CHECK_ONLY");
  if (!flag || std::string(flag) != "1") return false;
  for (const char* entry : entries) kernel(source, source_name, entry);
  std::printf("croq host: %zu __co__ function%s compiled\n", entries.size(), entries.size() == 1 ? "" : "s");
  std::exit(0);
}

#if CROQ_CHOREO_CUDA
inline memory classify(const void* ptr, int& device) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();  // no device, or not a CUDA pointer: host memory
    return memory::host;
  }
  device = attributes.device;
  const bool on_device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  return on_device ? memory::device : memory::host;
}
#else
inline memory classify(const void*, int& device) {
  device = 0;
  return memory::host;
}
#endif

template <typename T, std::size_t R>
croq::Arg to_arg(const spanned_view<T, R>& v) {
  if constexpr (!element_dtype<T>::known) {
    throw croq::ArgumentError("a tensor of an element type libcroqjit has no dtype for cannot be passed");
  } else {
    int device = 0;
    memory where = v.where() == memory::unknown ? classify(v.data(), device) : v.where();
    return croq::Arg(croq::TensorView::contiguous(
        v.data(), element_dtype<T>::value, detail::to_shape(v.shape()),
        where == memory::device ? croq::MemoryKind::device : croq::MemoryKind::host, device));
  }
}
template <typename T, std::size_t R>
croq::Arg to_arg(spanned_data<T, R>& d) {
  return to_arg(d.view());
}
inline croq::Arg to_arg(const croq::TensorView& v) { return croq::Arg(v); }
// A `stream` parameter: cudaStream_t (the runtime's name for CUstream).
inline croq::Arg to_arg(CUstream_st* stream) { return croq::Arg(stream); }
inline croq::Arg to_arg(const croq::Tensor& t) { return croq::Arg(t); }
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<std::decay_t<T>>>>
croq::Arg to_arg(T value) {
  return croq::Arg(value);
}
// A scalar of a half or 8-bit float type: passed as its value.
template <typename T, typename = std::enable_if_t<!std::is_arithmetic_v<T> && element_dtype<T>::known>,
          typename = void>
croq::Arg to_arg(const T& value) {
  return croq::Arg(static_cast<double>(to_f32(value)));
}

template <typename T, std::size_t R>
spanned_data<T, R> from_tensor(const croq::Tensor& result, const char* entry) {
  if constexpr (!element_dtype<T>::known) {
    throw croq::ArgumentError(std::string("`") + entry + "` returns an element type libcroqjit has no dtype for");
  } else {
    if (!result.defined()) throw croq::Error(std::string("`") + entry + "` returned no tensor");
    const croq::Tensor host = result.to_host();
    if (host.dtype() != element_dtype<T>::value || host.shape().rank() != static_cast<int>(R))
      throw croq::Error(std::string("`") + entry + "` returned " + std::string(croq::dtype_name(host.dtype())) + " " +
                        host.shape().str() + ", not the rank-" + std::to_string(R) +
                        " tensor its declaration gives");
    mdspan<R> dims;
    for (std::size_t d = 0; d < R; ++d) dims[d] = host.shape()[d];
    spanned_data<T, R> out(dims);
    std::memcpy(out.data(), host.data(), host.bytes());
    return out;
  }
}

// A Croqtile call returns once its kernels are done (a parallel statement
// without `.async` waits, and so does `sync.global`): device memory holds
// the results, and device printf output is out before the host's next line
// (the device synchronization flushes it, whichever streams ran the kernels).
// CROQ_INTERPRET=1 (1/true/yes/on, as the library reads it): the calls ran
// on the CPU, and there may be no device to wait for.
inline bool interpreting() {
  const char* flag = std::getenv("CROQ_INTERPRET");
  if (!flag) return false;
  std::string value(flag);
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value == "1" || value == "true" || value == "yes" || value == "on";
}

inline void wait_for_the_device() {
#if CROQ_CHOREO_CUDA
  if (interpreting()) return;
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    throw croq::CudaError("cudaDeviceSynchronize", static_cast<int>(e), cudaGetErrorString(e));
#endif
}

template <typename T>
struct is_spanned_data : std::false_type {};
template <typename T, std::size_t R>
struct is_spanned_data<spanned_data<T, R>> : std::true_type {};

// Calls the __co__ function `entry`; Result is void, spanned_data<T, R>, or
// an element type T (the function returns a scalar).
template <typename Result, typename... Args>
Result call(const char* source, const char* source_name, const char* entry, Args&&... args) {
  const croq::Kernel k = kernel(source, source_name, entry);
  try {
    std::array<croq::Arg, sizeof...(Args)> packed{to_arg(std::forward<Args>(args))...};
    croq::Tensor result = k.launch(std::span<const croq::Arg>(packed.data(), packed.size()));
    wait_for_the_device();
    if constexpr (std::is_void_v<Result>) {
      return;
    } else if constexpr (is_spanned_data<Result>::value) {
      using Element = std::remove_pointer_t<decltype(std::declval<Result&>().data())>;
      return from_tensor<Element, Result::rank()>(result, entry);
    } else {
      return from_tensor<Result, 1>(result, entry)[0];  // a scalar result: one element
    }
  } catch (const croq::Error& e) {
    fail(entry, e);
  }
}

}  // namespace host

// ------------------------------------------------------------- verification

namespace detail {

// sum over k of lhs(i, k) * rhs(k, j): rhs is [K, N] (col) or [N, K] (row).
template <typename A, typename B>
float dot(A& lhs, B& rhs, std::size_t i, std::size_t j, std::size_t k, bool rhs_is_n_by_k) {
  float sum = 0.0f;
  for (std::size_t kk = 0; kk < k; ++kk)
    sum += to_f32(lhs[i][kk]) * to_f32(rhs_is_n_by_k ? rhs[j][kk] : rhs[kk][j]);
  return sum;
}

// Checks res(i, j) against the dot product at up to max_i x max_j evenly
// spread positions; the first miss is printed and fails the assertion.
template <typename A, typename B, typename C>
void verify_grid(A& lhs, B& rhs, C& res, float base_tol, float rel_tol, std::size_t max_i,
                 std::size_t max_j, bool rhs_is_n_by_k) {
  const std::size_t m = res.shape()[0], n = res.shape()[1], k = lhs.shape()[1];
  const std::size_t step_i = std::max<std::size_t>(1, m / std::max<std::size_t>(1, max_i));
  const std::size_t step_j = std::max<std::size_t>(1, n / std::max<std::size_t>(1, max_j));
  for (std::size_t i = 0; i < m; i += step_i)
    for (std::size_t j = 0; j < n; j += step_j) {
      const float expect = dot(lhs, rhs, i, j, k, rhs_is_n_by_k);
      const float got = to_f32(res[i][j]);
      if (std::fabs(got - expect) > base_tol + rel_tol * std::fabs(expect)) {
        std::cout << "[" << i << ", " << j << "] expected " << expect << ", got " << got << "\n";
        choreo_assert(false, "values are not equal.");
      }
    }
}

}  // namespace detail

// res [M, N] = lhs [M, K] x rhs [K, N], checked on a grid of max_i x max_j
// positions, each within base_tol + rel_tol * |reference|.
template <typename A, typename B, typename C>
void verify_matmul_row_col_subset(A& lhs, B& rhs, C& res, float base_tol, float rel_tol, std::size_t max_i = 8,
                                  std::size_t max_j = 8) {
  detail::verify_grid(lhs, rhs, res, base_tol, rel_tol, max_i, max_j, false);
}
// The same with rhs given as [N, K].
template <typename A, typename B, typename C>
void verify_matmul_row_row_subset(A& lhs, B& rhs, C& res, float base_tol, float rel_tol, std::size_t max_i = 8,
                                  std::size_t max_j = 8) {
  detail::verify_grid(lhs, rhs, res, base_tol, rel_tol, max_i, max_j, true);
}

struct SampledVerifierConfig {
  std::size_t num_samples = 512;
  float base_tol = 1.0f;
  float rel_tol = 0.01f;
  bool verbose = false;
};

namespace detail {

// Checks num_samples positions of res spread over all of it (a fixed odd
// multiplicative walk, so rows and columns both vary); prints up to five
// misses (all when verbose) and fails the assertion when any.
template <typename A, typename B, typename C>
void verify_sampled(A& lhs, B& rhs, C& res, const SampledVerifierConfig& cfg, bool rhs_is_n_by_k) {
  const std::size_t m = res.shape()[0], n = res.shape()[1], k = lhs.shape()[1];
  const std::size_t total = m * n;
  const std::size_t samples = std::min(cfg.num_samples, total);
  std::size_t failed = 0;
  for (std::size_t s = 0; s < samples; ++s) {
    const std::size_t flat = samples == total ? s : (s * 2654435761ull + total / 2) % total;
    const std::size_t i = flat / n, j = flat % n;
    const float expect = dot(lhs, rhs, i, j, k, rhs_is_n_by_k);
    const float got = to_f32(res[i][j]);
    if (std::fabs(got - expect) > cfg.base_tol + cfg.rel_tol * std::fabs(expect)) {
      if (cfg.verbose || failed < 5)
        std::cout << "mismatch at (" << i << ", " << j << "): expected " << expect << ", got " << got << "\n";
      ++failed;
    }
  }
  if (failed) {
    std::cout << "FAILED: " << failed << " of " << samples << " samples\n";
    choreo_assert(false, "sampled verification failed");
  }
}

}  // namespace detail

template <typename A, typename B, typename C>
void verify_matmul_row_col_sampled(A& lhs, B& rhs, C& res, const SampledVerifierConfig& cfg = {}) {
  detail::verify_sampled(lhs, rhs, res, cfg, false);
}
template <typename A, typename B, typename C>
void verify_matmul_row_row_sampled(A& lhs, B& rhs, C& res, const SampledVerifierConfig& cfg = {}) {
  detail::verify_sampled(lhs, rhs, res, cfg, true);
}
// Sparse products are checked against the dense lhs they were made from.
template <typename A, typename B, typename C>
void verify_spmm_sampled(A& dense_lhs, B& rhs, C& res, const SampledVerifierConfig& cfg = {}) {
  detail::verify_sampled(dense_lhs, rhs, res, cfg, true);
}

// ------------------------------------------------------------------ timing

struct TimerOption {
  int warmup = 10;
  int repeat = 100;
  bool sync = true;  // wait for the device after each run
};

// Average milliseconds of `fn(args...)` over opt.repeat runs after
// opt.warmup untimed ones.
template <typename F, typename... Args>
double timing(F&& fn, const TimerOption& opt, Args&&... args) {
  auto wait = [&] {
#if CROQ_CHOREO_CUDA
    if (opt.sync && !host::interpreting()) (void)cudaDeviceSynchronize();
#endif
  };
  for (int i = 0; i < opt.warmup; ++i) fn(args...);
  wait();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < opt.repeat; ++i) {
    fn(args...);
    wait();
  }
  const std::chrono::duration<double, std::milli> spent = std::chrono::steady_clock::now() - start;
  return opt.repeat > 0 ? spent.count() / opt.repeat : 0.0;
}

}  // namespace choreo
