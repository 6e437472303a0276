#include "bind/bind.hpp"

#include "frontend/frontend.hpp"
#include "support/checked_int.hpp"

namespace croq::bind {

using namespace frontend::ast;

namespace {

std::string shape_text(DType t, const std::vector<std::int64_t>& dims) {
  std::string s = std::string(dtype_name(t)) + " [";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

std::map<std::string, std::int64_t> bind(const Program& program, const Function& fn,
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
      const Expr& dim = *p.type.shape[d];
      if (a.shape[d] < 0) continue;  // a dynamic dim: checked at launch
      std::optional<std::int64_t> want;
      if (const auto* lit = std::get_if<IntegerLiteral>(&dim.node)) {
        want = lit->value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? static_cast<std::int64_t>(lit->value) : -1;
      } else if (const auto* n = std::get_if<Name>(&dim.node)) {
        auto def = program.defines.find(n->name);
        if (def != program.defines.end() && def->second.value && std::holds_alternative<std::int64_t>(*def->second.value))
          want = std::get<std::int64_t>(*def->second.value);
        else if (auto b = dims.find(n->name); b != dims.end()) {
          if (b->second != a.shape[d])
            throw ArgumentError(who + ": dimension " + std::to_string(d) + " is " + n->name + ", bound to " +
                                std::to_string(b->second) + " by an earlier argument, but got " + got);
        } else {
          dims[n->name] = a.shape[d];
          if (sources) (*sources)[n->name] = abi::DimSource{static_cast<int>(i), static_cast<int>(d)};
        }
      }
      if (want && *want != a.shape[d]) throw ArgumentError(who + ": expected " + describe(p) + ", got " + got);
    }
  }
  return dims;
}

}  // namespace

std::map<std::string, std::int64_t> bind_dims(const Program& program, const Function& fn,
                                              const std::vector<abi::ArgSignature>& args) {
  return bind(program, fn, args, nullptr);
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

lower::BoundFunction bind_function(const Program& program, const Function& fn, const std::vector<abi::ArgSignature>& args,
                                   const std::vector<std::string>& dynamic_dims) {
  lower::BoundFunction bound;
  bound.program = &program;
  bound.function = &fn;
  bound.args = args;
  bound.dims = bind(program, fn, args, &bound.dim_sources);
  bound.dynamic = dynamic_dim_sources(program, fn, dynamic_dims);
  return bound;
}

}  // namespace croq::bind
