// croq precompile and the explanation of a compile; see precompile_command.hpp.
#include "cli/precompile_command.hpp"

#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli_common.hpp"
#include "cli/file_io.hpp"
#include "croq/error.hpp"
#include "jit/jit_compiler.hpp"
#include "pipeline/pipeline.hpp"

namespace croq::cli {
namespace {

using Bindings = std::map<std::string, std::int64_t>;

// A signature file's lines past this length are not signatures.
constexpr std::size_t kMaxSignatureLine = 4096;

std::string bindings_text(const Bindings& b) {
  std::string s;
  for (const auto& [name, value] : b) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s.empty() ? "(no dims)" : s;
}

// The symbolic dims of `fn`'s parameters (names that are not defines).
std::set<std::string> symbolic_dims(const frontend::ast::Program& program, const frontend::ast::Function& fn) {
  std::set<std::string> dims;
  for (const auto& p : fn.params)
    for (const auto& dim : p.type.shape)
      if (const auto* n = std::get_if<frontend::ast::Name>(&dim->node); n && !program.defines.count(n->name) &&
                                                                        n->name != "?" && n->name != "??")
        dims.insert(n->name);
  return dims;
}

std::vector<std::string> split_archs(const std::string& list) {
  std::vector<std::string> archs;
  std::stringstream in(list);
  for (std::string arch; std::getline(in, arch, ',');)
    if (!arch.empty()) archs.push_back(arch);
  return archs;
}

struct PrecompileOptions {
  CompileOptions compile;
  Bindings shapes;
  std::string path, signatures_file, archs, source_name;
  bool json = false;
};

// Returns -1 when the arguments are fine, else the exit status.
int parse_arguments(const std::vector<std::string>& args, PrecompileOptions& o) {
  for (ArgReader r(args); !r.done(); r.next()) {
    std::string v, error;
    if (r.value("--define", v) || r.value("-D", v)) {
      if (!parse_define(v, o.compile, error)) return usage_error(error);
    } else if (r.value("--shape", v)) {
      if (!parse_shape(v, o.shapes, error)) return usage_error(error);
    } else if (r.value("--signatures", v)) {
      o.signatures_file = v;
    } else if (r.value("--entry", v)) {
      o.compile.entry = v;
    } else if (r.value("--source-name", v)) {
      o.source_name = v;
    } else if (r.value("--arch", v)) {
      o.archs = v;
    } else if (r.current() == "--json") {
      o.json = true;
    } else if (r.missing_value()) {
      return usage_error(r.current() + " needs a value");
    } else if (!r.current().empty() && r.current()[0] != '-' && o.path.empty()) {
      o.path = r.current();
    } else {
      return usage_error("precompile: unexpected argument `" + r.current() + "`");
    }
  }
  if (o.path.empty()) return usage_error("precompile: missing input file");
  if (!o.archs.empty() && split_archs(o.archs).empty())
    return usage_error("precompile: --arch needs one or more architectures, such as sm_90a,sm_80");
  return -1;
}

// The signatures to compile: one per line of --signatures, each over the
// --shape bindings (a line's own binding of a name wins), or the --shape
// bindings alone.
int signatures_of(const PrecompileOptions& o, std::vector<Bindings>& out) {
  if (o.signatures_file.empty()) {
    out.push_back(o.shapes);
    return -1;
  }
  std::string text;
  if (std::string problem = input_file_problem(o.signatures_file); !problem.empty()) return usage_error(problem);
  if (std::string problem = read_source(o.signatures_file, text); !problem.empty()) return usage_error(problem);
  std::vector<Bindings> lines;
  std::string error;
  if (!parse_signatures(text, o.signatures_file, lines, error)) return usage_error(error);
  for (Bindings& line : lines) {
    Bindings merged = o.shapes;
    for (const auto& [name, value] : line) merged[name] = value;
    out.push_back(std::move(merged));
  }
  return -1;
}

nlohmann::json stats_json(const std::string& bindings, const SpecializationStats& s) {
  return {{"arch", s.arch}, {"shapes", bindings}, {"signature", s.signature}, {"source", image_source_name(s.source)},
          {"reason", s.reason}, {"compile_ms", s.compile_ms}, {"specialize_ms", s.specialize_ms}};
}

}  // namespace

bool parse_signatures(const std::string& text, const std::string& file, std::vector<Bindings>& out,
                      std::string& error) {
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (line.size() > kMaxSignatureLine) {
      error = where + "line longer than " + std::to_string(kMaxSignatureLine) + " bytes";
      return false;
    }
    line = line.substr(0, line.find('#'));
    std::istringstream tokens(line);
    Bindings bindings;
    for (std::string token; tokens >> token;) {
      Bindings one;
      std::string why;
      if (!parse_shape(token, one, why)) {
        error = where + "expected NAME=POSITIVE_INTEGER, got `" + token + "`";
        return false;
      }
      if (bindings.count(one.begin()->first)) {
        error = where + one.begin()->first + " is bound twice";
        return false;
      }
      bindings.insert(*one.begin());
    }
    if (!bindings.empty()) out.push_back(std::move(bindings));
  }
  if (out.empty()) {
    error = file + ": no signatures (one line of NAME=VALUE dims per signature)";
    return false;
  }
  return true;
}

std::vector<Arg> arguments_for(const std::vector<abi::ArgSignature>& signature) {
  std::vector<Arg> args;
  for (const abi::ArgSignature& a : signature) {
    if (a.is_tensor) args.emplace_back(TensorView::contiguous(nullptr, a.dtype, Shape(a.shape.begin(), a.shape.end())));
    else if (a.is_stream) args.emplace_back(static_cast<CUstream_st*>(nullptr));
    else if (a.is_integer) args.emplace_back(std::int64_t{0});
    else args.emplace_back(0.0);
  }
  return args;
}

std::string explanation(const std::string& function, const SpecializationStats& s) {
  char ms[64];
  std::snprintf(ms, sizeof ms, "%.1f ms (NVRTC %.1f ms)", s.specialize_ms, s.compile_ms);
  return "specialization: " + function + "(" + s.signature + ") for " + s.arch + "\n" +
         "source: " + image_source_name(s.source) + "\n" +
         "reason: " + (s.source == ImageSource::compiled ? s.reason : "nothing compiled") + "\n" +
         "time: " + ms + "\n";
}

int run_precompile(const std::vector<std::string>& args) {
  PrecompileOptions o;
  if (int status = parse_arguments(args, o); status >= 0) return status;
  std::string source;
  if (std::string problem = read_source(o.path, source); !problem.empty()) return usage_error(problem);
  // The generated code names the source (#line), so the keys are the
  // application's only under the name it compiles with.
  o.compile.source_name = !o.source_name.empty() ? o.source_name : o.path == "-" ? "<stdin>" : o.path;
  std::vector<Bindings> signatures;
  if (int status = signatures_of(o, signatures); status >= 0) return status;
  std::shared_ptr<const pipeline::CheckedProgram> checked;
  try {
    checked = pipeline::check(source, o.compile);
  } catch (const Error& e) {
    std::cerr << e.what() << (std::string(e.what()).back() == '\n' ? "" : "\n");
    return kExitErrors;
  }
  const std::set<std::string> dims = symbolic_dims(*checked->program, *checked->function);
  for (const Bindings& b : signatures)
    for (const auto& [name, value] : b)
      if (!dims.count(name))
        return usage_error("precompile: `" + name + "` is not a symbolic dim of `" + checked->function->name + "`");
  const std::vector<std::string> archs = o.archs.empty() ? std::vector<std::string>{""} : split_archs(o.archs);
  int failures = 0, made_count = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const std::string& arch : archs) {
    for (const Bindings& b : signatures) {
      const std::string shapes = bindings_text(b);
      try {
        auto sig = signature_for(*checked->program, *checked->function, b, {});
        const std::vector<Arg> call = arguments_for(sig);
        const std::vector<std::string> one_arch = arch.empty() ? std::vector<std::string>{} : std::vector{arch};
        KernelStats made = precompile(source, o.compile, std::span(&call, 1), one_arch);
        for (const SpecializationStats& s : made.specializations) {
          ++made_count;
          rows.push_back(stats_json(shapes, s));
          if (o.json) continue;
          std::printf("%-8s  %-28s  %s", s.arch.c_str(), shapes.c_str(), image_source_name(s.source));
          if (s.source == ImageSource::compiled) std::printf("  %.1f ms  (%s)", s.compile_ms, s.reason.c_str());
          std::printf("\n");
        }
      } catch (const Error& e) {
        ++failures;
        std::string what = e.what();
        while (!what.empty() && what.back() == '\n') what.pop_back();
        std::cerr << "croq precompile: " << (arch.empty() ? "" : arch + " ") << shapes << ": " << what << "\n";
        if (o.json) rows.push_back({{"arch", arch}, {"shapes", shapes}, {"error", what}});
      }
    }
  }
  const auto& disk = jit::JitCompiler::global().disk();
  if (o.json) {
    std::cout << nlohmann::json{{"cache_dir", disk.enabled() ? disk.dir().string() : std::string()},
                                {"specializations", rows}, {"failures", failures}}
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    std::printf("%d specializations, %d failed; cache: %s\n", made_count, failures,
                disk.enabled() ? disk.dir().c_str() : "memory only (nothing kept)");
  }
  return failures == 0 ? kExitOk : kExitErrors;
}

}  // namespace croq::cli
