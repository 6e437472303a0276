#include "api/interpret_call.hpp"

#include <cstdio>
#include <cstring>

#include "api/launch_args.hpp"
#include "api/tensor_size.hpp"
#include "interp/interpreter.hpp"
#include "support/env.hpp"

namespace croq::detail {

namespace {

// The call's signature as the GPU path builds it: dynamic dims as -1.
std::vector<abi::ArgSignature> signature(const pipeline::CheckedProgram& checked, std::span<const Arg> args) {
  const auto& params = checked.function->params;
  std::vector<abi::ArgSignature> sig;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    abi::ArgSignature s;
    if (a.kind() != Arg::Kind::tensor) {
      s.is_tensor = false;
      s.is_integer = a.kind() == Arg::Kind::integer;
      s.is_stream = a.kind() == Arg::Kind::stream;
      sig.push_back(s);
      continue;
    }
    const TensorView& v = a.view();
    const std::string who = "argument " + std::to_string(i + 1) + " '" +
                            (i < params.size() ? params[i].name : std::string("?")) + "'";
    if (v.memory != MemoryKind::host)
      throw ArgumentError(who + ": " + v.str() +
                          " is device memory; interpret mode (CROQ_INTERPRET, CompileOptions::interpret) runs on "
                          "the CPU and takes host tensors");
    check_view(v, who, true);
    if (!v.is_contiguous()) throw ArgumentError(who + ": " + v.str() + " is not contiguous (row-major); pass a contiguous copy");
    s.dtype = v.dtype;
    for (int d = 0; d < v.shape.rank(); ++d) {
      bool dynamic = false;
      for (const auto& [name, where] : checked.dynamic_sources)
        for (const abi::DimSource& w : where)
          dynamic = dynamic || (w.argument == static_cast<int>(i) && w.dim == d);
      s.shape.push_back(dynamic ? -1 : static_cast<std::int64_t>(v.shape[d]));
    }
    sig.push_back(std::move(s));
  }
  return sig;
}

interp::ParamValue tensor_value(const TensorView& v) {
  interp::ParamValue p;
  p.data = v.data;
  p.dtype = v.dtype;
  for (std::size_t x : v.shape) p.shape.push_back(static_cast<std::int64_t>(x));
  return p;
}

void fill_host(std::byte* at, std::size_t bytes, const std::vector<std::uint8_t>& element) {
  if (element.empty()) return;
  for (std::size_t i = 0; i + element.size() <= bytes; i += element.size()) std::memcpy(at + i, element.data(), element.size());
}

std::vector<interp::ParamValue> parameter_values(const abi::KernelAbi& abi, std::span<const Arg> args,
                                                 const Tensor& output, std::vector<std::vector<std::byte>>& scratch,
                                                 std::span<const host::Value> host_scalars) {
  std::vector<interp::ParamValue> values;
  for (const abi::KernelParam& kp : abi.params) {
    interp::ParamValue p;
    using K = abi::KernelParam::Kind;
    const auto arg = [&](int i) -> const Arg& { return args[static_cast<std::size_t>(i)]; };
    switch (kp.kind) {
      case K::tensor: p = tensor_value(arg(kp.argument).view()); break;
      case K::output: p = tensor_value(output.view()); break;
      case K::tensor_map:
        if (kp.scratch < 0) {
          p = tensor_value(kp.argument < 0 ? output.view() : arg(kp.argument).view());
          break;
        }
        [[fallthrough]];
      case K::scratch: {
        const auto index = static_cast<std::size_t>(kp.kind == K::scratch ? kp.argument : kp.scratch);
        const abi::ScratchBuffer& b = abi.scratch[index];
        p.data = scratch[index].data();
        p.dtype = b.dtype;
        p.shape = b.shape;
        break;
      }
      case K::integer:
        p.integer = kp.host_slot >= 0 ? host_scalars[static_cast<std::size_t>(kp.host_slot)].i : arg(kp.argument).integer();
        break;
      case K::floating: {
        if (kp.host_slot >= 0) {
          p.floating = host_scalars[static_cast<std::size_t>(kp.host_slot)].as_float();
          break;
        }
        const Arg& a = arg(kp.argument);
        p.floating = a.kind() == Arg::Kind::floating ? a.floating() : static_cast<double>(a.integer());
        break;
      }
      case K::dim:
        p.integer = static_cast<std::int64_t>(arg(kp.dim.argument).view().shape[static_cast<std::size_t>(kp.dim.dim)]);
        break;
    }
    values.push_back(std::move(p));
  }
  return values;
}

}  // namespace

bool interpreting(const CompileOptions& options) {
  static const bool from_env = support::env_flag("CROQ_INTERPRET", false);
  return options.interpret || from_env;
}

Tensor interpret_call(const pipeline::CheckedProgram& checked, std::span<const Arg> args, const LaunchOptions& options) {
  const std::vector<abi::ArgSignature> sig = signature(checked, args);
  const pipeline::TargetChoice target = pipeline::choose_target(checked.options.arch, 0);
  pipeline::GenerateOptions generate;
  generate.max_shared_bytes = target.max_shared_bytes;
  generate.dynamic_dims = checked.options.dynamic_dims;
  generate.keep_kernel = true;
  const pipeline::GeneratedProgram program =
      pipeline::generate_program(*checked.program, *checked.function, sig, target.target, generate);
  return interpret_program(checked, program, args, options);
}

Tensor interpret_program(const pipeline::CheckedProgram& checked, const pipeline::GeneratedProgram& program,
                         std::span<const Arg> args, const LaunchOptions& options) {
  const std::string& name = checked.function->name;
  static const abi::KernelAbi no_kernel;  // a host program without a parallel statement
  const abi::KernelAbi& first = program.kernels.empty() ? no_kernel : program.kernels.front();
  abi::KernelAbi fills = first;  // the program's fills, as the runtime takes them
  for (const pipeline::GeneratedKernel& k : program.kernels) take_fills(fills, k);
  Tensor output;
  if (first.has_output) {
    const Shape shape = result_shape_of(first, args);
    if (options.output != nullptr) {
      if (options.output->dtype != first.output_dtype || !(options.output->shape == shape) ||
          options.output->memory != MemoryKind::host)
        throw ArgumentError("`" + name + "`: LaunchOptions::output " + options.output->str() +
                            " must be a host tensor of the result's " + std::string(dtype_name(first.output_dtype)) +
                            " " + shape.str() + " in interpret mode");
    }
    output = Tensor::empty(first.output_dtype, shape, MemoryKind::host);
    // The kernels write into the caller's tensor on a GPU, so elements the
    // program leaves alone keep the caller's values; a new result starts at
    // zero here (a GPU's fresh allocation holds whatever it held).
    if (options.output != nullptr)
      output.copy_from(*options.output);
    else if (output.bytes() > 0)
      std::memset(output.data(), 0, output.bytes());
    fill_host(static_cast<std::byte*>(output.data()), output.bytes(), fills.output_fill);
  }
  // Program buffers without a fill hold what the memory held on a GPU:
  // here bytes of 0xff (NaN in floats, -1 in integers), so a program that
  // reads before it writes gets results a reference check notices.
  std::vector<std::vector<std::byte>> scratch;
  for (std::size_t i = 0; i < first.scratch.size(); ++i) {
    const abi::ScratchBuffer& b = first.scratch[i];
    std::size_t n = dtype_size(b.dtype);
    for (std::int64_t x : b.shape) n *= static_cast<std::size_t>(x);
    scratch.emplace_back(n, std::byte{0xff});
    fill_host(scratch.back().data(), n, fills.scratch[i].fill);
  }
  auto launch = [&](const pipeline::GeneratedKernel& part, std::span<const host::Value> host_scalars) {
    const abi::LaunchConfig launch = launch_config_of(part, args, name, host_scalars);
    interp::RunOptions run;
    run.blocks = static_cast<std::int64_t>(launch.grid[0]) * launch.grid[1] * launch.grid[2];
    try {
      interp::run_kernel(*part.kernel, part, parameter_values(part, args, output, scratch, host_scalars), run);
    } catch (const interp::Fault& f) {
      const std::string text = render_diagnostics(
          {Diagnostic(Severity::error, "interpret mode: " + f.message, f.line, f.line > 0 ? 1 : 0, 1)},
          checked.program->source, checked.program->source_name);
      throw InterpretError(text, f.line);
    }
  };
  if (program.host.launches_only) {
    for (const pipeline::GeneratedKernel& part : program.kernels) launch(part, {});
  } else {
    host::Hooks hooks = host_hooks(args, name);
    hooks.launch = [&](int kernel, std::span<const host::Value> slots) {
      launch(program.kernels[static_cast<std::size_t>(kernel)], slots);
    };
    hooks.print = [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    };
    if (const std::optional<host::Value> returned = host::run(program.host, hooks); program.host.result)
      return scalar_result(*returned, *program.host.result, options, name);
  }
  if (options.output != nullptr && output.defined()) {
    output.copy_to(*options.output);
    return Tensor();
  }
  return output;
}

}  // namespace croq::detail
