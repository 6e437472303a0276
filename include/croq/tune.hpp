// croq::tune: pick the fastest of several #define configurations of a
// kernel on the real arguments, and remember the choice on disk.
//
//   std::vector<croq::TuneConfig> configs = croq::cross_product({{"TM", {16, 32}}, {"TN", {8, 16, 32}}});
//   croq::TuneResult tuned = croq::tune(source, configs, lhs.view(), rhs.view());
//   auto out = tuned.kernel(lhs.view(), rhs.view());
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "croq/error.hpp"
#include "croq/kernel.hpp"
#include "croq/options.hpp"
#include "croq/tensor.hpp"

namespace croq {

// One configuration: #define overrides applied over TuneOptions::compile.defines.
struct TuneConfig {
  std::map<std::string, DefineValue> defines;
  std::string str() const;  // "TM=16 TN=32" (empty: "(source defaults)")
  friend bool operator==(const TuneConfig&, const TuneConfig&) = default;
};

// The most configurations one tune takes (each is an NVRTC compile and a
// timing): cross_product and tune throw ArgumentError above it.
inline constexpr std::size_t kMaxTuneConfigurations = 1024;

// Every combination of the values, the first name varying slowest:
// {{"A", {1, 2}}, {"B", {3, 4}}} -> A=1 B=3, A=1 B=4, A=2 B=3, A=2 B=4.
// Throws ArgumentError for an empty value list, a repeated name, or more
// than kMaxTuneConfigurations combinations (before allocating them).
std::vector<TuneConfig> cross_product(const std::vector<std::pair<std::string, std::vector<DefineValue>>>& axes);

// What one configuration produced on the tuning arguments, as host tensors.
struct TuneOutputs {
  const TuneConfig* config = nullptr;
  Tensor result;                 // the returned tensor; empty when the function returns none
  std::vector<Tensor> arguments;  // per argument: its value after the call when the kernel writes it, else empty
};

// Says why `outputs` are wrong, or returns an empty string when they are right.
using TuneChecker = std::function<std::string(const TuneOutputs& outputs)>;

// Where a tune is, as it goes: "compile" after each configuration is
// compiled (or failed to), `done` of `total` configurations; then "time"
// after each compiled one is checked and timed (or failed), `done` of
// `total` compiled ones. Called on tune's thread; what it throws ends the
// tune and reaches tune's caller as it is (a progress bar the user
// interrupted).
using TuneProgress = std::function<void(std::string_view stage, std::size_t done, std::size_t total)>;

struct TuneOptions {
  // The base options; each configuration's defines override `compile.defines`.
  CompileOptions compile;
  // Checks each configuration's outputs. Empty: the first configuration that
  // runs is the reference (its outputs must be the same when the result was
  // poisoned with two different patterns, so that elements it never writes
  // are caught), and every later one must match it: integers exactly,
  // floating types within atol + rtol * |reference| (NaN never matches).
  TuneChecker check;
  double rtol = -1;  // < 0: by dtype (f64 1e-9, f32 1e-4, f16 1e-2, bf16 2e-2, f8 0.25)
  double atol = -1;  // < 0: rtol times the largest magnitude of the reference
  int warmup = 3;        // untimed launches before timing
  int repetitions = 10;  // timed samples; the median is reported
  int device = -1;       // -1: the device tensors' device, else the current one
  // false: time every configuration even when a record of an earlier choice
  // exists, and replace the record.
  bool reuse_record = true;
  TuneProgress progress;  // empty: nothing reported
};

// What happened to one configuration.
struct TuneTrial {
  enum class Status { timed, compile_failed, launch_failed, wrong_result, not_run };
  TuneConfig config;
  Status status = Status::not_run;
  double median_ms = 0;  // timed only
  double min_ms = 0;     // timed only
  std::string why;       // every status but timed: the error or the checker's reason
};
const char* status_name(TuneTrial::Status status);  // "timed", "compile failed", ...

struct TuneResult {
  Kernel kernel;            // compiled with the chosen configuration's defines
  TuneConfig config;        // the chosen configuration
  std::size_t index = 0;    // its position in the configuration list
  // The choice came from a record of an earlier tune (on disk, or earlier in
  // this process): nothing was timed and `trials` is empty.
  bool from_cache = false;
  std::vector<TuneTrial> trials;  // one per configuration, in order, when timed
  std::string key;          // the record's key (32 hex digits)
  std::string record_path;  // the record on disk; empty when the disk cache is off
};

// "config  status  median ms  note" lines, one per trial, and the choice.
std::string format_tune_table(const std::vector<TuneTrial>& trials, std::size_t chosen = static_cast<std::size_t>(-1));

// No configuration could be timed and checked (all failed, or no CUDA
// device: configurations are still compiled, so compile errors show).
class TuneError : public Error {
 public:
  TuneError(const std::string& message, std::vector<TuneTrial> trials);
  const std::vector<TuneTrial>& trials() const { return trials_; }

 private:
  std::vector<TuneTrial> trials_;
};

// Compiles, runs, checks and times each configuration on `args` and returns
// the fastest. Host arguments are copied to the device once; device tensors
// that the kernel writes are restored before each run and before returning.
// The choice is recorded next to the kernel cache (docs/how-to/autotuning.md),
// keyed by the source, the base options, the configurations, the arguments'
// dtypes and shapes, the arch and the device name; a later call with the
// same key compiles the recorded configuration and times nothing.
// Throws ArgumentError for an empty configuration list, TuneError when no
// configuration succeeds.
TuneResult tune(std::string_view source, std::span<const TuneConfig> configs, std::span<const Arg> args,
                const TuneOptions& options = {});

template <typename... Args>
  requires(sizeof...(Args) > 0 && (std::is_constructible_v<Arg, Args &&> && ...))
TuneResult tune(std::string_view source, std::span<const TuneConfig> configs, Args&&... args) {
  std::array<Arg, sizeof...(Args)> packed{Arg(std::forward<Args>(args))...};
  return tune(source, configs, std::span<const Arg>(packed.data(), packed.size()), TuneOptions{});
}

}  // namespace croq
