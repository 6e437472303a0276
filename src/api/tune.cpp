// croq::tune: compile, run, check and time each configuration; remember the
// fastest (tune_record.hpp).
#include "croq/tune.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "api/entry_point.hpp"
#include "api/tensor_size.hpp"
#include "api/tune_compare.hpp"
#include "api/tune_record.hpp"
#include "jit/driver.hpp"
#include "pipeline/pipeline.hpp"
#include "support/log.hpp"

namespace croq {
namespace {

using Status = TuneTrial::Status;

// Choices made earlier in this process, by key: reused even when the disk
// cache is off (CROQ_CACHE=0).
struct InProcessChoices {
  std::mutex mutex;
  std::map<std::string, std::size_t> chosen;
};
InProcessChoices& in_process_choices() {
  static InProcessChoices choices;
  return choices;
}

// A configuration compiled and specialized for the arguments.
struct Candidate {
  Kernel kernel;
  CallInfo info;
};

CompileOptions options_for(const TuneOptions& options, const TuneConfig& config) {
  CompileOptions compile = options.compile;
  for (const auto& [name, value] : config.defines) compile.defines[name] = value;
  return compile;
}

// Compiles and specializes; a failure goes into `trial`.
std::optional<Candidate> compile_config(std::string_view source, const TuneOptions& options, const TuneConfig& config,
                                        std::span<const Arg> args, int device, TuneTrial& trial) {
  try {
    Candidate c;
    c.kernel = compile(source, options_for(options, config));
    c.info = c.kernel.prepare(args, LaunchOptions{nullptr, device, nullptr});
    return c;
  } catch (const CudaError& e) {  // loading the module: too much shared memory, ...
    trial.status = Status::launch_failed;
    trial.why = e.what();
  } catch (const Error& e) {
    trial.status = Status::compile_failed;
    trial.why = e.what();
  }
  return std::nullopt;
}

int device_of(std::span<const Arg> args, int requested) {
  if (requested >= 0) return requested;
  for (const Arg& a : args)
    if (a.kind() == Arg::Kind::tensor && a.view().memory == MemoryKind::device) return a.view().device;
  return jit::current_device();
}

// The tuning copies of the arguments on the device: host tensors staged
// once, device tensors used in place. Tensors that some configuration
// writes are restored from a saved copy before each run and at the end.
class TuningArguments {
 public:
  TuningArguments(std::span<const Arg> args, const std::vector<Candidate*>& candidates, int device) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Arg& a = args[i];
      bool written = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate* c) {
        return i < c->info.argument_written.size() && c->info.argument_written[i];
      });
      Tensor staged, saved;
      if (a.kind() == Arg::Kind::tensor && a.view().memory == MemoryKind::host)
        staged = Tensor::copy_of(a.view(), MemoryKind::device, device);
      if (a.kind() == Arg::Kind::tensor && written) saved = Tensor::copy_of(a.view(), MemoryKind::device, device);
      call_.push_back(staged.defined() ? Arg(staged) : a);
      staged_.push_back(std::move(staged));
      saved_.push_back(std::move(saved));
    }
  }
  ~TuningArguments() {
    try {
      restore();  // the caller's device tensors get their values back
    } catch (const Error& e) {
      support::log().warn("croq::tune: could not restore the written arguments: {}", e.what());
    }
  }
  std::span<const Arg> call() const { return call_; }
  void restore() {
    for (std::size_t i = 0; i < saved_.size(); ++i)
      if (saved_[i].defined()) saved_[i].copy_to(call_[i].view());
  }
  // Host copies of what `info` says the kernel wrote.
  std::vector<Tensor> written(const CallInfo& info) const {
    std::vector<Tensor> out(call_.size());
    for (std::size_t i = 0; i < call_.size(); ++i)
      if (i < info.argument_written.size() && info.argument_written[i] && call_[i].kind() == Arg::Kind::tensor)
        out[i] = Tensor::copy_of(call_[i].view(), MemoryKind::host);
    return out;
  }

 private:
  std::vector<Arg> call_;
  std::vector<Tensor> staged_, saved_;
};

// One configuration on the device: a checked run, then the timed runs.
class Runner {
 public:
  Runner(TuningArguments& args, const TuneOptions& options, int device)
      : args_(args), options_(options), device_(device) {}

  // Runs once on restored arguments with the result poisoned by `poison`;
  // returns the outputs on the host. Throws on a launch failure.
  TuneOutputs run_checked(const Candidate& c, const TuneConfig& config, unsigned char poison) {
    args_.restore();
    Tensor result = result_buffer(c, poison);
    launch(c, result);
    CROQ_CU(cuStreamSynchronize, nullptr);
    TuneOutputs out;
    out.config = &config;
    if (result.defined()) out.result = result.to_host();
    out.arguments = args_.written(c.info);
    return out;
  }

  void time(const Candidate& c, TuneTrial& trial) {
    Tensor result = result_buffer(c, 0);
    for (int i = 0; i < options_.warmup; ++i) launch(c, result);
    CROQ_CU(cuStreamSynchronize, nullptr);
    std::vector<float> ms;
    for (int i = 0; i < std::max(options_.repetitions, 1); ++i) {
      CROQ_CU(cuEventRecord, start_.get(), nullptr);
      launch(c, result);
      CROQ_CU(cuEventRecord, stop_.get(), nullptr);
      CROQ_CU(cuEventSynchronize, stop_.get());
      float e = 0;
      CROQ_CU(cuEventElapsedTime, &e, start_.get(), stop_.get());
      ms.push_back(e);
    }
    std::sort(ms.begin(), ms.end());
    trial.status = Status::timed;
    trial.median_ms = ms[ms.size() / 2];
    trial.min_ms = ms.front();
  }

 private:
  struct Event {
    Event() { CROQ_CU(cuEventCreate, &event, 0); }
    ~Event() { jit::driver().cuEventDestroy(event); }
    CUevent get() const { return event; }
    CUevent event = nullptr;
  };

  Tensor result_buffer(const Candidate& c, unsigned char poison) const {
    if (!c.info.has_result) return Tensor();
    Tensor t = Tensor::empty(c.info.result_dtype, c.info.result_shape, MemoryKind::device, device_);
    if (t.bytes() > 0) CROQ_CU(cuMemsetD8, reinterpret_cast<CUdeviceptr>(t.data()), poison, t.bytes());
    return t;
  }
  void launch(const Candidate& c, const Tensor& result) const {
    c.kernel.launch(args_.call(), LaunchOptions{nullptr, device_, result.defined() ? &result.view() : nullptr});
  }

  TuningArguments& args_;
  const TuneOptions& options_;
  int device_;
  Event start_, stop_;
};

// Whether the device context still works after a failure (a faulting
// kernel leaves it unusable for every later launch).
bool context_usable(std::string* why) {
  CUresult r = jit::driver().cuCtxSynchronize();
  if (r == CUDA_SUCCESS) return true;
  const char* name = nullptr;
  jit::driver().cuGetErrorName(r, &name);
  *why = name ? name : std::to_string(static_cast<int>(r));
  return false;
}

// The caller's checker; what it throws makes the outputs wrong.
std::string run_checker(const TuneChecker& check, const TuneOutputs& outputs) {
  try {
    return check(outputs);
  } catch (const std::exception& e) {
    return std::string("the checker threw: ") + e.what();
  }
}

// Checks, then times, configuration `i`; fills trials[i].
void run_candidate(Runner& runner, const Candidate& candidate, std::span<const TuneConfig> configs, std::size_t i,
                   const TuneOptions& options, std::optional<TuneOutputs>& reference, std::vector<TuneTrial>& trials) {
  TuneTrial& trial = trials[i];
  try {
    TuneOutputs out = runner.run_checked(candidate, configs[i], 0xff);
    std::string wrong;
    if (options.check) {
      wrong = run_checker(options.check, out);
    } else if (reference) {
      wrong = detail::compare_outputs(out, *reference, options.rtol, options.atol);
    } else {
      // The reference must not depend on the poison: that catches
      // elements it never writes.
      TuneOutputs again = runner.run_checked(candidate, configs[i], 0x00);
      wrong = detail::compare_outputs(again, out, options.rtol, options.atol);
      if (!wrong.empty()) wrong = "its outputs depend on the poisoned memory it starts from: " + wrong;
    }
    if (!wrong.empty()) {
      trial.status = Status::wrong_result;
      trial.why = wrong;
      return;
    }
    if (!options.check && !reference) reference = std::move(out);
    runner.time(candidate, trial);
  } catch (const Error& e) {
    trial.status = Status::launch_failed;
    trial.why = e.what();
    std::string lost;
    if (!context_usable(&lost)) {
      for (std::size_t j = i + 1; j < configs.size(); ++j)
        if (trials[j].status == Status::not_run)  // compiled, not run yet
          trials[j].why = "the CUDA context is unusable (" + lost + ") after " + configs[i].str() + " failed";
      throw TuneError("croq::tune: the CUDA context is unusable after configuration " + configs[i].str() +
                          " failed; nothing can run in this process any more",
                      trials);
    }
  }
}

// Checks, then times, every compiled configuration; fills `trials`.
void run_candidates(std::vector<std::optional<Candidate>>& candidates, std::span<const TuneConfig> configs,
                    TuningArguments& args, const TuneOptions& options, int device, std::vector<TuneTrial>& trials) {
  Runner runner(args, options, device);
  std::optional<TuneOutputs> reference;
  const auto compiled = static_cast<std::size_t>(
      std::count_if(candidates.begin(), candidates.end(), [](const auto& c) { return c.has_value(); }));
  std::size_t done = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (!candidates[i]) continue;
    run_candidate(runner, *candidates[i], configs, i, options, reference, trials);
    if (options.progress) options.progress("time", ++done, compiled);
  }
}

std::size_t fastest(const std::vector<TuneTrial>& trials) {
  std::size_t best = trials.size();
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].status == Status::timed && (best == trials.size() || trials[i].median_ms < trials[best].median_ms))
      best = i;
  return best;
}

TuneResult tune_checked(std::string_view source, std::span<const TuneConfig> configs, std::span<const Arg> args,
                        const TuneOptions& options) {
  if (configs.empty()) throw ArgumentError("croq::tune: the configuration list is empty");
  if (options.device < -1)
    throw ArgumentError("croq::TuneOptions::device " + std::to_string(options.device) +
                        " is neither -1 (the arguments' or current device) nor a device ordinal");
  if (configs.size() > kMaxTuneConfigurations)
    throw ArgumentError("croq::tune: " + std::to_string(configs.size()) + " configurations, more than " +
                        std::to_string(kMaxTuneConfigurations) + ", the limit");
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind() != Arg::Kind::tensor) continue;
    detail::check_view(args[i].view(), "croq::tune: argument " + std::to_string(i + 1), false);
    if (args[i].view().data == nullptr && args[i].view().numel() > 0)
      throw ArgumentError("croq::tune: argument " + std::to_string(i + 1) +
                          " has no data; tuning runs the kernel on the real arguments");
  }
  const int device = device_of(args, options.device);
  std::string no_gpu;
  const bool gpu = cuda_available(&no_gpu) && device < jit::device_count();
  if (!gpu && no_gpu.empty()) no_gpu = "no CUDA device " + std::to_string(device);
  const std::string arch = pipeline::choose_target(options.compile.arch, device).target.arch;
  const std::string device_name = gpu ? jit::device_info(device).name : std::string("(no device)");

  TuneResult result;
  const detail::TuneKeyInput input = detail::tune_key_input(source, options.compile, configs, args, arch, device_name);
  result.key = detail::tune_key(input);
  const detail::TuneRecordStore store = detail::TuneRecordStore::from_environment();
  result.record_path = store.path_of(result.key);
  auto& remembered = in_process_choices();

  // A recorded choice: compile it (the kernel cache usually has its cubin).
  if (options.reuse_record && gpu) {
    std::optional<std::size_t> chosen;
    {
      std::lock_guard<std::mutex> lock(remembered.mutex);
      if (auto it = remembered.chosen.find(result.key); it != remembered.chosen.end()) chosen = it->second;
    }
    if (!chosen)
      if (auto record = store.load(result.key, input)) chosen = record->chosen;
    if (chosen && *chosen < configs.size()) {
      TuneTrial trial;
      trial.config = configs[*chosen];
      if (auto c = compile_config(source, options, configs[*chosen], args, device, trial)) {
        support::log().info("croq::tune: using the recorded choice {} ({})", configs[*chosen].str(), result.key);
        result.kernel = c->kernel;
        result.config = configs[*chosen];
        result.index = *chosen;
        result.from_cache = true;
        return result;
      }
      support::log().warn("croq::tune: the recorded choice {} no longer builds ({}); tuning again",
                          configs[*chosen].str(), trial.why.substr(0, trial.why.find('\n')));
    }
  }

  support::log().info("croq::tune: timing {} configurations ({})", configs.size(), result.key);
  std::vector<TuneTrial> trials(configs.size());
  std::vector<std::optional<Candidate>> candidates(configs.size());
  std::vector<Candidate*> compiled;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    trials[i].config = configs[i];
    candidates[i] = compile_config(source, options, configs[i], args, device, trials[i]);
    if (candidates[i]) compiled.push_back(&*candidates[i]);
    if (options.progress) options.progress("compile", i + 1, configs.size());
  }
  if (!gpu) {
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (candidates[i]) trials[i].why = "compiled; no CUDA device to run it on";
    throw TuneError("croq::tune: no configuration can be timed without a CUDA device (" + no_gpu + ")", trials);
  }
  if (!compiled.empty()) {
    jit::make_current(device);
    TuningArguments tuning_args(args, compiled, device);
    run_candidates(candidates, configs, tuning_args, options, device, trials);
  }
  const std::size_t best = fastest(trials);
  if (best == trials.size()) throw TuneError("croq::tune: no configuration compiled, ran and checked", trials);

  result.kernel = candidates[best]->kernel;
  result.config = configs[best];
  result.index = best;
  result.trials = std::move(trials);
  {
    std::lock_guard<std::mutex> lock(remembered.mutex);
    remembered.chosen[result.key] = best;
  }
  store.store(detail::TuneRecord{result.key, input, best, result.trials[best].median_ms});
  return result;
}

}  // namespace

TuneResult tune(std::string_view source, std::span<const TuneConfig> configs, std::span<const Arg> args,
                const TuneOptions& options) {
  return detail::entry_point("croq::tune", [&] { return tune_checked(source, configs, args, options); });
}

}  // namespace croq
