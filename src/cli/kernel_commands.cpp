// croq compile / run / bench: the subcommands that specialize a kernel.
#include "cli/kernel_commands.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <random>

#include "cli/cli_common.hpp"
#include "cli/file_io.hpp"
#include "support/env.hpp"
#include "cli/npy.hpp"
#include "cli/precompile_command.hpp"
#include "cli/roofline_plot.hpp"
#include "cli/tune_command.hpp"
#include "croq/croq.hpp"
#include "frontend/frontend.hpp"
#include "jit/driver.hpp"
#include "passes/passes.hpp"
#include "pipeline/pipeline.hpp"

namespace croq::cli {
namespace {

// Options every kernel subcommand shares.
struct KernelOptions {
  CompileOptions compile;
  std::map<std::string, std::int64_t> shapes;
  std::string path;
  std::string source;
  FlagValues once;  // --entry, --arch, --emit, -o: one value each
};

// Parses the shared options; false when the argument is none of them (a
// usage error sets `status`).
bool parse_common(ArgReader& r, KernelOptions& k, int& status) {
  std::string v, error;
  if (r.value("--define", v) || r.value("-D", v)) {
    if (!parse_define(v, k.compile, error)) status = usage_error(error);
  } else if (r.value("--shape", v)) {
    if (!parse_shape(v, k.shapes, error)) status = usage_error(error);
  } else if (r.value("--entry", v)) {
    if (!k.once.take("--entry", v, k.compile.entry, error)) status = usage_error(error);
  } else if (r.value("--arch", v)) {
    if (!k.once.take("--arch", v, k.compile.arch, error)) status = usage_error(error);
  } else if (!r.current().empty() && (r.current()[0] != '-' || r.current() == "-") && k.path.empty()) {
    k.path = r.current();  // `-` is standard input
  } else {
    return false;
  }
  return true;
}

int load_source(KernelOptions& k) {
  if (k.path.empty()) return usage_error("missing input file");
  if (std::string problem = read_source(k.path, k.source); !problem.empty()) return usage_error(problem);
  k.compile.source_name = k.path == "-" ? "<stdin>" : k.path;
  return kExitOk;
}

std::string shape_list(const abi::ArgSignature& a) {
  std::string s = std::string(dtype_name(a.dtype)) + " [";
  for (std::size_t i = 0; i < a.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(a.shape[i]);
  return s + "]";
}

Tensor random_tensor(const abi::ArgSignature& a, std::mt19937_64& rng) {
  Shape shape(a.shape.begin(), a.shape.end());
  Tensor t = Tensor::empty(a.dtype, shape, MemoryKind::host);
  std::size_t n = t.numel();
  auto fill = [&](auto* p, auto make) { for (std::size_t i = 0; i < n; ++i) p[i] = make(); };
  std::uniform_int_distribution<int> ints(-10, 10);
  std::uniform_real_distribution<float> reals(-1.0f, 1.0f);
  switch (a.dtype) {
    case DType::s8: fill(static_cast<s8*>(t.data()), [&] { return static_cast<s8>(ints(rng)); }); break;
    case DType::u8: fill(static_cast<u8*>(t.data()), [&] { return static_cast<u8>(ints(rng) + 10); }); break;
    case DType::s16: fill(static_cast<s16*>(t.data()), [&] { return static_cast<s16>(ints(rng)); }); break;
    case DType::u16: fill(static_cast<u16*>(t.data()), [&] { return static_cast<u16>(ints(rng) + 10); }); break;
    case DType::s32: fill(static_cast<s32*>(t.data()), [&] { return static_cast<s32>(ints(rng)); }); break;
    case DType::u32: fill(static_cast<u32*>(t.data()), [&] { return static_cast<u32>(ints(rng) + 10); }); break;
    case DType::s64: fill(static_cast<s64*>(t.data()), [&] { return static_cast<s64>(ints(rng)); }); break;
    case DType::u64: fill(static_cast<u64*>(t.data()), [&] { return static_cast<u64>(ints(rng) + 10); }); break;
    case DType::f16: fill(static_cast<f16*>(t.data()), [&] { return f16(reals(rng)); }); break;
    case DType::bf16: fill(static_cast<bf16*>(t.data()), [&] { return bf16(reals(rng)); }); break;
    case DType::f32: fill(static_cast<float*>(t.data()), [&] { return reals(rng); }); break;
    case DType::f64: fill(static_cast<double*>(t.data()), [&] { return static_cast<double>(reals(rng)); }); break;
    case DType::f8_e4m3: fill(static_cast<f8_e4m3*>(t.data()), [&] { return f8_e4m3(reals(rng)); }); break;
    case DType::f8_e5m2: fill(static_cast<f8_e5m2*>(t.data()), [&] { return f8_e5m2(reals(rng)); }); break;
    case DType::f6_e2m3: fill(static_cast<f6_e2m3*>(t.data()), [&] { return f6_e2m3(reals(rng)); }); break;
    case DType::f6_e3m2: fill(static_cast<f6_e3m2*>(t.data()), [&] { return f6_e3m2(reals(rng)); }); break;
    case DType::f4_e2m1: fill(static_cast<f4_e2m1*>(t.data()), [&] { return f4_e2m1(reals(rng)); }); break;
    case DType::tf32: fill(static_cast<tf32*>(t.data()), [&] { return tf32(reals(rng)); }); break;
    // Scales: powers of two from 2^-10 to 2^10; unsigned E4M3 of [0, 1).
    case DType::f8_ue8m0: fill(static_cast<std::uint8_t*>(t.data()), [&] { return static_cast<std::uint8_t>(127 + ints(rng)); }); break;
    case DType::f8_ue4m3: fill(static_cast<f8_ue4m3*>(t.data()), [&] { return f8_ue4m3(std::fabs(reals(rng))); }); break;
    case DType::u6: case DType::s6: case DType::u4: case DType::s4: case DType::u2: case DType::s2:
    case DType::u1: case DType::bin1: {
      // Every value of the type: a byte's low bits.
      const auto mask = static_cast<std::uint8_t>((1u << dtype_bits(a.dtype)) - 1);
      fill(static_cast<std::uint8_t*>(t.data()), [&] { return static_cast<std::uint8_t>(ints(rng) & mask); });
      break;
    }
  }
  return t;
}

void print_summary(const std::string& label, const Tensor& t) {
  Tensor h = t.to_host();
  double sum = 0;
  std::size_t n = h.numel();
  TensorView flat = TensorView::contiguous(h.data(), h.dtype(), Shape{n});
  if (h.shape().rank() == 0) {  // a returned number
    std::cout << label << ": " << dtype_name(h.dtype()) << " " << ElementRef(&flat, 0, 1).as_double() << "\n";
    return;
  }
  for (std::size_t i = 0; i < n; ++i) sum += ElementRef(&flat, static_cast<std::int64_t>(i), 1).as_double();
  std::cout << label << ": " << dtype_name(h.dtype()) << " " << h.shape().str() << ", sum " << sum << ", first";
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 6); ++i)
    std::cout << " " << ElementRef(&flat, static_cast<std::int64_t>(i), 1).as_double();
  std::cout << "\n";
}

}  // namespace

std::vector<Diagnostic> constant_shape_refusals(const std::string& source, const CompileOptions& options,
                                                const std::vector<std::string>& functions) {
  std::vector<Diagnostic> out;
  const auto program = frontend::parse_program(source, options);
  for (const frontend::ast::Function& fn : program->functions) {
    if (!functions.empty() && std::find(functions.begin(), functions.end(), fn.name) == functions.end()) continue;
    std::vector<abi::ArgSignature> sig;
    try {
      sig = signature_for(*program, fn, {}, {});
    } catch (const Error&) {
      continue;  // a symbolic dim: its extents come with a call
    }
    CompileOptions o = options;
    o.entry = fn.name;
    const std::string note = "croq::compile rejects it when it specializes `" + fn.name + "` for its constant shapes";
    try {
      const auto checked = pipeline::check(source, o);
      pipeline::generate(*checked, sig, pipeline::choose_target(o.arch, 0));
    } catch (const CompileError& e) {
      for (Diagnostic d : e.diagnostics()) {
        if (d.severity != Severity::error) continue;
        d.severity = Severity::warning;
        d.notes.push_back(note);
        out.push_back(std::move(d));
      }
    } catch (const Error& e) {
      out.push_back(Diagnostic(Severity::warning, e.what(), fn.location.line, fn.location.column, 1, {}, {}, {note}));
    }
  }
  return out;
}

// What `croq compile` prints, and how.
struct CompileRequest {
  std::string emit, output, after;
  bool explain = false, explain_only = false, full = false;
};

// One __co__ function (k.compile.entry, or the only one) into `text`;
// errors go to standard error and give kExitErrors.
int compile_entry(const KernelOptions& k, const CompileRequest& q, std::string& text) {
  try {
    if (q.emit == "ast") {
      text += frontend::print_ast(*frontend::parse_program(k.source, k.compile));
      return kExitOk;
    }
    // The same stages as croq::compile and a call: check, target, generate.
    auto checked = pipeline::check(k.source, k.compile);
    auto sig = signature_for(*checked->program, *checked->function, k.shapes, {});
    if (q.explain) {
      // Through the kernel cache, as the first call with these shapes would.
      const std::vector<Arg> call = arguments_for(sig);
      const KernelStats made = precompile(k.source, k.compile, std::span(&call, 1));
      const std::string explained = explanation(checked->function->name, made.specializations.at(0));
      (q.explain_only ? std::cout : std::cerr) << explained;
      if (q.explain_only) return kExitOk;
    }
    if (q.emit == "info") {
      // Through the kernel cache, as a call with these shapes would; the
      // driver's figures with a device, ptxas's report without.
      const std::vector<Arg> call = arguments_for(sig);
      text += format_kernel_info(compile(k.source, k.compile).info(call));
      return kExitOk;
    }
    const pipeline::TargetChoice target = pipeline::choose_target(k.compile.arch, 0);
    const std::string& arch = target.target.arch;
    if (q.emit == "cubin" && target.target.is_virtual)
      return usage_error("compile: " + arch + " is a virtual architecture (PTX only); use --emit ptx or an sm_XY arch");
    auto generated = pipeline::generate(*checked, sig, target, q.emit == "ir", q.after,
                                        q.full ? ir::IrDetail::full : ir::IrDetail::summary);
    if (q.emit == "cubin" && generated.kernels.size() > 1)
      return usage_error("compile: `" + checked->function->name + "` is a program of " +
                         std::to_string(generated.kernels.size()) + " kernels (one cubin each); use --emit ptx");
    // A program's kernels, in launch order.
    for (const pipeline::GeneratedKernel& gen : generated.kernels) {
      for (const Diagnostic& w : gen.warnings) std::cerr << render_diagnostics({w}, k.source, k.path);
      if (q.emit == "cuda") {
        text += gen.cuda_source;
      } else if (q.emit == "ir") {
        text += gen.ir;
      } else {
        auto out = pipeline::compile_image(*checked, gen, target);
        text += q.emit == "ptx" ? out.ptx : std::string(out.cubin.begin(), out.cubin.end());
      }
    }
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << e.what() << (std::string(e.what()).back() == '\n' ? "" : "\n");
    return kExitErrors;
  }
}

// The __co__ functions of the source when it has several and no --entry
// chose one (empty otherwise, and when it does not parse: compile_entry
// reports that).
std::vector<std::string> every_entry(const KernelOptions& k) {
  std::vector<std::string> names;
  if (!k.compile.entry.empty()) return names;
  try {
    // The program outlives the loop (a range over a member of a temporary
    // would not: its names were read after it was freed).
    const auto program = frontend::parse_program(k.source, k.compile);
    for (const auto& f : program->functions)
      if (!f.is_co_device) names.push_back(f.name);
  } catch (const Error&) {
    return {};
  }
  if (names.size() < 2) names.clear();
  return names;
}

// croq compile FILE.co [--emit ast|ir|cuda|ptx|cubin|info] [--after STAGE] [--full] [-o FILE] [--shape N=V]...
//   [--define N=V]... [--entry NAME] [--arch A] [--explain]
// Without --entry, a source of several __co__ functions compiles each, in
// source order, each under a `// ==== __co__ NAME` line; one that fails is
// reported and the others still compile (exit status: errors).
int run_compile(const std::vector<std::string>& args) {
  KernelOptions k;
  CompileRequest q;
  int status = kExitOk;
  for (ArgReader r(args); !r.done(); r.next()) {
    std::string v;
    if (parse_common(r, k, status)) { if (status) return status; continue; }
    std::string error;
    if (r.value("--emit", v)) {
      if (!k.once.take("--emit", v, q.emit, error)) return usage_error(error);
    } else if (r.value("--after", v)) {
      if (!k.once.take("--after", v, q.after, error)) return usage_error(error);
    } else if (r.current() == "--explain") {
      q.explain = true;
    } else if (r.current() == "--full") {
      q.full = true;
    } else if (r.value("-o", v) || r.value("--output", v)) {
      if (!k.once.take("-o", v, q.output, error)) return usage_error(error);
    } else if (r.missing_value()) return usage_error(r.current() + " needs a value");
    else return usage_error("compile: unexpected argument `" + r.current() + "`");
  }
  // --explain alone prints only the explanation, on standard output.
  q.explain_only = q.explain && q.emit.empty() && q.output.empty();
  if (q.emit.empty()) q.emit = "cuda";
  const std::string& emit = q.emit;
  if (emit != "ast" && emit != "ir" && emit != "cuda" && emit != "ptx" && emit != "cubin" && emit != "info")
    return usage_error("compile: --emit takes ast, ir, cuda, ptx, cubin or info, got `" + emit + "`");
  if (emit == "cubin" && q.output.empty()) return usage_error("compile: --emit cubin needs -o FILE (it is binary)");
  if ((!q.after.empty() || q.full) && emit != "ir")
    return usage_error(std::string("compile: ") + (q.full ? "--full" : "--after") + " goes with --emit ir");
  if (!q.after.empty() && q.after != passes::kLowered && !passes::find_pass(q.after))
    return usage_error("compile: --after takes a stage (" + passes::stage_names() + "), got `" + q.after + "`");
  if (std::string problem = output_overwrites_input(q.output, k.path); !problem.empty())
    return usage_error("compile: " + problem);
  if ((status = load_source(k))) return status;
  const std::vector<std::string> entries = emit == "ast" ? std::vector<std::string>{} : every_entry(k);
  if (entries.empty()) {
    std::string text;
    if ((status = compile_entry(k, q, text)) || q.explain_only) return status;
    return write_output(text, q.output, "croq compile");
  }
  if (emit == "cubin")
    return usage_error("compile: the source defines " + std::to_string(entries.size()) +
                       " __co__ functions (one cubin each); choose one with --entry, or use --emit ptx");
  std::string text;
  int failed = 0;
  for (const std::string& name : entries) {
    k.compile.entry = name;
    std::string one;
    if (compile_entry(k, q, one) != kExitOk) {
      ++failed;
      continue;
    }
    text += "// ==== __co__ " + name + "\n" + one;
  }
  if (failed) std::cerr << "croq compile: " << failed << " of " << entries.size() << " __co__ functions failed\n";
  if (!q.explain_only && (!text.empty() || !failed)) {
    const int written = write_output(text, q.output, "croq compile");
    if (written != kExitOk) return written;
  }
  return failed ? kExitErrors : kExitOk;
}

// croq run FILE.co [--arg NAME=in.npy]... [--random SEED] [--shape N=V]... [--out result.npy] [--interpret]
int run_run(const std::vector<std::string>& args) {
  KernelOptions k;
  std::map<std::string, std::string> inputs;
  std::string out_path;
  std::optional<std::uint64_t> seed;
  int status = kExitOk;
  for (ArgReader r(args); !r.done(); r.next()) {
    std::string v;
    if (parse_common(r, k, status)) { if (status) return status; continue; }
    if (r.value("--arg", v)) {
      std::size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) return usage_error("--arg needs NAME=FILE.npy, got `" + v + "`");
      inputs[v.substr(0, eq)] = v.substr(eq + 1);
    } else if (r.value("--random", v)) {
      std::optional<std::int64_t> n = parse_integer_option(v);
      if (!n || *n < 0) return usage_error("--random needs a non-negative integer seed, got `" + v + "`");
      seed = static_cast<std::uint64_t>(*n);
    } else if (r.value("--out", v)) {
      std::string error;
      if (!k.once.take("--out", v, out_path, error)) return usage_error(error);
    } else if (r.current() == "--interpret") {
      k.compile.interpret = true;  // the tile IR interpreter on the CPU: no GPU needed
    } else if (r.missing_value()) {
      return usage_error(r.current() + " needs a value");
    } else {
      return usage_error("run: unexpected argument `" + r.current() + "`");
    }
  }
  if (std::string problem = output_overwrites_input(out_path, k.path); !problem.empty())
    return usage_error("run: " + problem);
  if ((status = load_source(k))) return status;
  try {
    Kernel kernel = compile(k.source, k.compile);
    auto program = frontend::parse_program(k.source, k.compile);
    const auto& fn = frontend::select_entry(*program, k.compile, k.source);
    std::map<std::size_t, Tensor> loaded;
    std::map<std::size_t, TensorView> given;
    for (const auto& [name, file] : inputs) {
      auto it = std::find_if(fn.params.begin(), fn.params.end(), [&](const auto& p) { return p.name == name; });
      if (it == fn.params.end()) return usage_error("run: `" + fn.name + "` has no parameter named `" + name + "`");
      std::size_t index = static_cast<std::size_t>(it - fn.params.begin());
      loaded[index] = read_npy(file);
      given[index] = loaded[index].view();
    }
    auto sig = signature_for(*program, fn, k.shapes, given);
    std::mt19937_64 rng(seed.value_or(std::random_device{}()));
    std::vector<Arg> call;
    for (std::size_t i = 0; i < sig.size(); ++i) {
      if (!sig[i].is_tensor) return usage_error("run: scalar parameters are not supported by `croq run` yet");
      if (!loaded.count(i)) {
        if (!seed) return usage_error("run: no input for parameter '" + fn.params[i].name + "'; give --arg " +
                                      fn.params[i].name + "=FILE.npy or --random SEED");
        loaded[i] = random_tensor(sig[i], rng);
        std::cerr << "run: '" << fn.params[i].name << "' is random " << shape_list(sig[i]) << "\n";
      }
      call.emplace_back(loaded[i].view());
    }
    std::string why;
    if (!k.compile.interpret && !support::env_flag("CROQ_INTERPRET", false) && !cuda_available(&why)) {
      std::cerr << "croq run: running a kernel needs a CUDA GPU (" << why << "); --interpret runs it on the CPU\n";
      return kExitErrors;
    }
    Tensor result = kernel.launch(call);
    if (result.defined()) {
      print_summary("result", result);
      if (!out_path.empty()) write_npy(out_path, result);
    } else {
      for (std::size_t i = 0; i < sig.size(); ++i) print_summary(fn.params[i].name, loaded[i]);
      if (!out_path.empty()) std::cerr << "run: `" << fn.name << "` returns nothing; --out ignored\n";
    }
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << e.what() << (std::string(e.what()).back() == '\n' ? "" : "\n");
    return kExitErrors;
  }
}

// croq bench FILE.co --shape N=V... [--reps N] [--flops N] [--tune NAME=V1,V2,...]... [--plot FILE.png]
int run_bench(const std::vector<std::string>& args) {
  KernelOptions k;
  int reps = 50;
  double flops = 0;
  std::string plot;  // the roofline PNG, when asked for
  TuneAxes tune_axes;
  int status = kExitOk;
  for (ArgReader r(args); !r.done(); r.next()) {
    std::string v, error;
    if (parse_common(r, k, status)) { if (status) return status; continue; }
    if (r.value("--tune", v)) {
      if (!parse_tune_axis(v, tune_axes, error)) return usage_error(error);
    } else if (r.value("--reps", v)) {
      std::optional<std::int64_t> n = parse_integer_option(v);
      if (!n || *n < 1 || *n > 1000000) return usage_error("--reps needs an integer from 1 to 1000000, got `" + v + "`");
      reps = static_cast<int>(*n);
    }
    else if (r.value("--flops", v)) flops = std::strtod(v.c_str(), nullptr);
    else if (r.value("--plot", v)) {
      if (!k.once.take("--plot", v, plot, error)) return usage_error(error);
    }
    else if (r.missing_value()) return usage_error(r.current() + " needs a value");
    else return usage_error("bench: unexpected argument `" + r.current() + "`");
  }
  if (std::string problem = output_overwrites_input(plot, k.path); !problem.empty())
    return usage_error("bench: " + problem);
  if ((status = load_source(k))) return status;
  try {
    Kernel kernel = compile(k.source, k.compile);
    auto program = frontend::parse_program(k.source, k.compile);
    const auto& fn = frontend::select_entry(*program, k.compile, k.source);
    auto sig = signature_for(*program, fn, k.shapes, {});
    std::mt19937_64 rng(1);
    std::vector<Tensor> host;
    for (const auto& a : sig) {
      if (!a.is_tensor) return usage_error("bench: scalar parameters are not supported by `croq bench` yet");
      host.push_back(random_tensor(a, rng));
    }
    // Without a GPU, tuning still compiles every configuration and reports them.
    if (!tune_axes.empty()) {
      std::optional<Kernel> tuned = tune_for_bench(k.source, k.compile, tune_axes, host);
      if (!tuned) return kExitErrors;
      kernel = *tuned;
    }
    std::string why;
    if (!cuda_available(&why)) {
      std::cerr << "croq bench: needs a CUDA GPU (" << why << ")\n";
      return kExitErrors;
    }
    std::vector<Tensor> device;
    std::vector<Arg> call;
    for (const Tensor& h : host) {
      device.push_back(h.to_device());
      call.emplace_back(device.back());
    }
    // One warm-up call (it specializes), then `reps` timed ones.
    const KernelTiming timing = time_kernel(kernel, call, 1, reps);
    const double median = timing.median_ms;
    std::string label = fn.name + "(";
    for (std::size_t i = 0; i < sig.size(); ++i) label += (i ? ", " : "") + shape_list(sig[i]);
    label += ")";
    std::cout << fn.name << ":";
    for (const auto& a : sig) std::cout << " " << shape_list(a);
    std::printf("\n  median %.4f ms over %d runs (min %.4f), %.1f GB/s of arguments and result", median, reps,
                timing.min_ms, static_cast<double>(timing.bytes) / (median * 1e-3) / 1e9);
    if (flops > 0) std::printf(", %.2f TFLOP/s", flops / (median * 1e-3) / 1e12);
    std::printf("\n");
    std::fflush(stdout);
    if (!plot.empty()) {
      const DevicePeaks peaks = device_peaks(jit::current_device());
      if (draw_roofline(roofline_figures(peaks, label, timing, flops > 0 ? std::optional<double>(flops) : std::nullopt),
                        plot) != 0)
        return kExitErrors;
      std::cout << "  roofline written to " << plot << "\n";
    }
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << e.what() << (std::string(e.what()).back() == '\n' ? "" : "\n");
    return kExitErrors;
  }
}

}  // namespace croq::cli
