#include "bind/bind.hpp"

#include "frontend/frontend.hpp"
#include "bind/signature_check.hpp"

namespace croq::bind {

using namespace frontend::ast;

namespace {

std::map<std::string, std::int64_t> bind_signature(const Program& program, const Function& fn,
                                         const std::vector<abi::ArgSignature>& args,
                                         std::map<std::string, abi::DimSource>* sources) {
  if (args.size() != fn.params.size())
    throw ArgumentError("`" + fn.name + "` takes " + std::to_string(fn.params.size()) + " argument" +
                        (fn.params.size() == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
  std::map<std::string, std::int64_t> dims;
  auto describe = [&](const Parameter& p) {
    std::string s = p.type.name + " [";
    for (std::size_t i = 0; i < p.type.shape.size(); ++i) s += (i ? ", " : "") + frontend::source_text(program, *p.type.shape[i]);
    return s + "]";
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Parameter& p = fn.params[i];
    const abi::ArgSignature& a = args[i];
    std::string who = "argument " + std::to_string(i + 1) + " '" + p.name + "'";
    const bool param_is_stream = p.type.kind == TypeKind::stream;
    if (param_is_stream != a.is_stream)
      throw ArgumentError(who + (param_is_stream ? ": expected a stream (cudaStream_t or CUstream), got "
                                                 : ": expected " + (p.type.has_shape ? "a tensor " + describe(p)
                                                                                     : "a scalar " + p.type.name) +
                                                       ", got ") +
                          (a.is_stream ? "a stream" : a.is_tensor ? "a tensor" : "a scalar"));
    if (a.is_stream) continue;
    bool param_is_tensor = p.type.has_shape;
    if (param_is_tensor != a.is_tensor)
      throw ArgumentError(who + ": expected " + (param_is_tensor ? "a tensor " + describe(p) : "a scalar " + p.type.name) +
                          ", got " + (a.is_tensor ? "a tensor" : "a scalar"));
    if (!a.is_tensor) continue;
    DType expected;
    if (!parse_dtype(p.type.name, expected)) throw ArgumentError(who + ": element type `" + p.type.name + "` is not supported yet");
    std::string got = shape_text(a.dtype, a.shape);
    if (a.dtype != expected || a.shape.size() != p.type.shape.size())
      throw ArgumentError(who + ": expected " + describe(p) + ", got " + got);
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      const ParameterDim dim = parameter_dim(program, *p.type.shape[d]);
      if (a.shape[d] < 0) continue;  // a dynamic dim: checked at launch
      if (dim.constant && *dim.constant != a.shape[d]) throw ArgumentError(who + ": expected " + describe(p) + ", got " + got);
      if (dim.constant) continue;
      if (dim.name == "?") continue;  // a dim without a name: any extent, read from the argument
      if (auto b = dims.find(dim.name); b != dims.end()) {
        if (b->second != a.shape[d])
          throw ArgumentError(who + ": dimension " + std::to_string(d) + " is " + dim.name + ", bound to " +
                              std::to_string(b->second) + " by an earlier argument, but got " + got);
      } else {
        dims[dim.name] = a.shape[d];
        if (sources) (*sources)[dim.name] = abi::DimSource{static_cast<int>(i), static_cast<int>(d)};
      }
    }
  }
  return dims;
}

}  // namespace

std::map<std::string, std::int64_t> bind_dims(const Program& program, const Function& fn,
                                              const std::vector<abi::ArgSignature>& args) {
  return bind_signature(program, fn, args, nullptr);
}

std::map<std::string, std::vector<abi::DimSource>> dynamic_dim_sources(const Program& program, const Function& fn,
                                                                     const std::vector<std::string>& dynamic_dims) {
  std::map<std::string, std::vector<abi::DimSource>> sources;
  for (const std::string& name : dynamic_dims) {
    std::vector<abi::DimSource>& where = sources[name];
    for (std::size_t i = 0; i < fn.params.size(); ++i) {
      const Parameter& p = fn.params[i];
      if (!p.type.has_shape) continue;
      for (std::size_t d = 0; d < p.type.shape.size(); ++d) {
        const auto* n = std::get_if<Name>(&p.type.shape[d]->node);
        if (n && n->name == name) where.push_back({static_cast<int>(i), static_cast<int>(d)});
      }
    }
    std::string why;
    if (program.defines.count(name)) why = "it is a #define constant";
    else if (where.empty()) why = "no tensor parameter of `" + fn.name + "` has it as a dimension";
    if (!why.empty()) {
      Diagnostic d;
      d.message = "CompileOptions::dynamic_dims names `" + name + "`, but " + why;
      d.hint = "dynamic dims must be symbolic dims of the parameters, such as M in `f32 [M, K] a`";
      d.line = fn.location.line;
      d.column = fn.location.column;
      d.length = std::max(1, fn.location.length);
      throw CompileError({d}, program.source, program.source_name);
    }
  }
  return sources;
}

BoundFunction bind_function(const Program& program, const Function& fn, const std::vector<abi::ArgSignature>& args,
                                   const std::vector<std::string>& dynamic_dims) {
  BoundFunction bound;
  bound.program = &program;
  bound.function = &fn;
  bound.args = args;
  // Every extent the call has is checked, a dynamic dim's too (messages
  // show the real extent); then the dynamic dims are unbound again, so the
  // kernel holds for every extent they take.
  bound.dims = bind_signature(program, fn, args, &bound.dim_sources);
  bound.dynamic = dynamic_dim_sources(program, fn, dynamic_dims);
  for (const auto& [name, where] : bound.dynamic) {
    bound.dims.erase(name);
    bound.dim_sources.erase(name);
    for (const abi::DimSource& w : where) bound.args[w.argument].shape[w.dim] = -1;
  }
  check_argument_extents(fn, bound.args, dynamic_dims);
  return bound;
}

}  // namespace croq::bind
