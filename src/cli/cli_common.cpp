#include "cli/cli_common.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"

namespace croq::cli {

int usage_error(const std::string& message) {
  std::cerr << "croq: " << message << "\n(run `croq --help` for usage)\n";
  return kExitUsage;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

bool parse_define(const std::string& spec, CompileOptions& options, std::string& error) {
  size_t eq = spec.find('=');
  std::string name = spec.substr(0, eq);
  if (name.empty()) {
    error = "--define needs NAME=VALUE, got `" + spec + "`";
    return false;
  }
  if (eq == std::string::npos) {
    options.defines[name] = std::int64_t{1};
    return true;
  }
  std::string value = spec.substr(eq + 1);
  const char* begin = value.c_str();
  char* end = nullptr;
  long long i = std::strtoll(begin, &end, 0);
  if (!value.empty() && *end == '\0') {
    options.defines[name] = static_cast<std::int64_t>(i);
    return true;
  }
  double d = std::strtod(begin, &end);
  if (!value.empty() && (*end == '\0' || ((*end == 'f' || *end == 'F') && end[1] == '\0'))) {
    options.defines[name] = d;
    return true;
  }
  error = "--define " + name + ": `" + value + "` is not a number";
  return false;
}

bool parse_shape(const std::string& spec, std::map<std::string, std::int64_t>& shapes, std::string& error) {
  size_t eq = spec.find('=');
  char* end = nullptr;
  long long v = eq == std::string::npos ? 0 : std::strtoll(spec.c_str() + eq + 1, &end, 0);
  if (eq == std::string::npos || eq == 0 || end == spec.c_str() + eq + 1 || *end != '\0' || v <= 0) {
    error = "--shape needs NAME=POSITIVE_INTEGER, got `" + spec + "`";
    return false;
  }
  shapes[spec.substr(0, eq)] = v;
  return true;
}

bool ArgReader::value(const char* flag, std::string& out) {
  const std::string& a = args_[i_];
  std::string f = flag;
  if (a.rfind(f + "=", 0) == 0) {
    out = a.substr(f.size() + 1);
    return true;
  }
  if (a == f && i_ + 1 < args_.size()) {
    out = args_[++i_];
    return true;
  }
  return false;
}

bool ArgReader::missing_value() const { return i_ + 1 == args_.size() && args_[i_].rfind("--", 0) == 0; }

std::vector<codegen::ArgSignature> signature_for(const frontend::ast::Program& program,
                                                 const frontend::ast::Function& fn,
                                                 const std::map<std::string, std::int64_t>& shapes,
                                                 const std::map<std::size_t, TensorView>& given) {
  using namespace frontend::ast;
  std::map<std::string, std::int64_t> bound = shapes;
  // Dims named by tensors that were given bind first.
  for (const auto& [index, view] : given) {
    const Parameter& p = fn.params.at(index);
    for (std::size_t d = 0; d < p.type.shape.size() && d < static_cast<std::size_t>(view.shape.rank()); ++d)
      if (const auto* n = std::get_if<Name>(&p.type.shape[d]->node); n && !program.defines.count(n->name))
        bound.emplace(n->name, static_cast<std::int64_t>(view.shape[d]));
  }
  std::vector<codegen::ArgSignature> sig;
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    const Parameter& p = fn.params[i];
    codegen::ArgSignature a;
    if (!p.type.has_shape) {
      a.is_tensor = false;
      DType scalar_type;
      a.is_integer = !(p.type.kind == TypeKind::element && parse_dtype(p.type.name, scalar_type) &&
                       is_floating(scalar_type));
      sig.push_back(a);
      continue;
    }
    if (auto g = given.find(i); g != given.end()) {
      a.dtype = g->second.dtype;
      for (int d = 0; d < g->second.shape.rank(); ++d) a.shape.push_back(static_cast<std::int64_t>(g->second.shape[d]));
      sig.push_back(a);
      continue;
    }
    if (!parse_dtype(p.type.name, a.dtype))
      throw Error("parameter '" + p.name + "': element type `" + p.type.name + "` is not supported");
    for (const auto& dim : p.type.shape) {
      if (const auto* lit = std::get_if<IntegerLiteral>(&dim->node)) {
        a.shape.push_back(static_cast<std::int64_t>(lit->value));
      } else if (const auto* n = std::get_if<Name>(&dim->node)) {
        auto def = program.defines.find(n->name);
        if (def != program.defines.end() && def->second.value && std::holds_alternative<std::int64_t>(*def->second.value)) {
          a.shape.push_back(std::get<std::int64_t>(*def->second.value));
        } else if (auto b = bound.find(n->name); b != bound.end()) {
          a.shape.push_back(b->second);
        } else {
          throw Error("parameter '" + p.name + "' has the symbolic dim " + n->name + "; give it with --shape " +
                      n->name + "=N");
        }
      } else {
        throw Error("parameter '" + p.name + "': dim `" + frontend::print_expression(*dim) +
                    "` cannot be sized from the command line");
      }
    }
    sig.push_back(a);
  }
  return sig;
}

}  // namespace croq::cli
