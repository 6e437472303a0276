// libFuzzer target: the whole compiler up to CUDA text. Parse the source,
// specialize its entry function for shapes, dynamic dims and a target
// derived from the input, and generate CUDA through the middle end
// (pipeline::generate: bind, lower, passes with the IR verifier on, the
// CUDA backend; NVRTC is not run). Any crash, hang, sanitizer report,
// exception other than croq::Error, invalid IR, or generated text that lets
// the source name escape its literal or comment is a bug. See
// tests/fuzz/README.md for how to run it.
//
// Input layout: the source, then 8 configuration bytes (inputs of 8 bytes
// or less are all source, with a zero configuration):
//   byte 0  the target architecture (kArchs)
//   byte 1  bits 0..5: the i-th symbolic dim is dynamic; bit 6: a hostile
//           source name; bit 7: the first tensor gets a different dtype
//   bytes 2..7  the extent of the i-th symbolic dim (kExtents), in order of
//           first appearance among the parameters
// A zero configuration is sm_90a with every dim 256, so plain sources
// (the seed corpus, with 8 zero bytes appended) specialize as written.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "backend/cuda/cuda_text.hpp"
#include "support/format.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "pipeline/specialize.hpp"
#include "target/target.hpp"

namespace {

using namespace croq;

constexpr std::size_t kConfigBytes = 8;

const char* const kArchs[] = {"sm_90a", "sm_90", "sm_80", "sm_86", "sm_89", "compute_90a", "compute_80",
                              "sm_100a", "sm_120", "sm_75", "sm90a"};

// Extents that reach every size class: tiny, tile-sized, odd tails, the
// 32-bit and grid boundaries, and sizes whose products overflow.
const std::int64_t kExtents[] = {256,
                                 1,
                                 0,
                                 3,
                                 8,
                                 17,
                                 64,
                                 100,
                                 128,
                                 300,
                                 1000,
                                 4096,
                                 65536,
                                 65537,
                                 std::int64_t{1} << 20,
                                 0x7fffffff,
                                 std::int64_t{1} << 31,
                                 (std::int64_t{1} << 31) + 4099,
                                 (std::int64_t{1} << 32) + 1,
                                 std::int64_t{1} << 40,
                                 std::int64_t{1} << 62,
                                 INT64_MAX};

// The symbolic dims of `fn`'s tensor parameters, in order of first appearance.
std::vector<std::string> symbolic_dims(const frontend::ast::Program& program, const frontend::ast::Function& fn) {
  std::vector<std::string> names;
  for (const auto& p : fn.params) {
    if (!p.type.has_shape) continue;
    for (const auto& dim : p.type.shape) {
      const auto* n = std::get_if<frontend::ast::Name>(&dim->node);
      if (!n || program.defines.count(n->name)) continue;
      bool seen = false;
      for (const auto& s : names) seen = seen || s == n->name;
      if (!seen) names.push_back(n->name);
    }
  }
  return names;
}

// The extent of a parameter's literal or #define dim, or -2 for anything else.
std::int64_t constant_dim(const frontend::ast::Program& program, const frontend::ast::Expr& dim) {
  if (const auto* lit = std::get_if<frontend::ast::IntegerLiteral>(&dim.node))
    return lit->value <= static_cast<std::uint64_t>(INT64_MAX) ? static_cast<std::int64_t>(lit->value) : -2;
  if (const auto* n = std::get_if<frontend::ast::Name>(&dim.node)) {
    auto def = program.defines.find(n->name);
    if (def != program.defines.end() && def->second.value && std::holds_alternative<std::int64_t>(*def->second.value))
      return std::get<std::int64_t>(*def->second.value);
  }
  return -2;
}

// The source name reaches the CUDA text only as the header comment and the
// literal of every #line (`literal`) the generator writes: a violation
// aborts (the fuzzer reports it). The __device__ code pasted verbatim is the
// user's text, #line directives of its own included: it is left out.
void check_source_name(const frontend::ast::Program& program, std::string cuda, const std::string& literal) {
  for (const frontend::ast::DeviceCode& code : program.device_code)
    if (std::size_t at = code.text.empty() ? std::string::npos : cuda.find(code.text); at != std::string::npos)
      cuda.erase(at, code.text.size());
  std::size_t begin = 0;
  int line_number = 0;
  while (begin < cuda.size()) {
    std::size_t end = cuda.find('\n', begin);
    if (end == std::string::npos) end = cuda.size();
    const std::string_view line(cuda.data() + begin, end - begin);
    if (line_number < 2 && line.substr(0, 3) != "// ") std::abort();
    if (line.substr(0, 6) == "#line ") {
      const std::size_t quote = line.find('"');
      if (quote == std::string_view::npos || line.substr(quote) != literal) std::abort();
    }
    begin = end + 1;
    ++line_number;
  }
}

// The middle end on one input; an error is a croq::Error (caught by the caller).
void generate_with_middle_end(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                              const std::vector<abi::ArgSignature>& args, const std::vector<std::string>& dynamic,
                              const std::string& arch) {
  pipeline::GenerateOptions options;
  options.dynamic_dims = dynamic;
  options.verify_ir = true;
  pipeline::GeneratedKernel k = pipeline::generate(program, fn, args, target::parse_target(arch), options);
  check_source_name(program, k.cuda_source, backend::cuda::cuda_string_literal(program.source_name));
  if (!support::is_identifier(k.entry)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::uint8_t config[kConfigBytes] = {};
  std::size_t source_size = size;
  if (size > kConfigBytes) {
    source_size = size - kConfigBytes;
    for (std::size_t i = 0; i < kConfigBytes; ++i) config[i] = data[source_size + i];
  }
  const std::string_view source(reinterpret_cast<const char*>(data), source_size);
  CompileOptions options;
  options.source_name = "fuzz.co";
  if (config[1] & 0x40) options.source_name = "a\"\n#define threadIdx blockIdx\\" + std::string(source.substr(0, 16));
  try {
    auto program = frontend::parse_program(source, options);
    const auto& fn = frontend::select_entry(*program, options, program->source);
    const std::vector<std::string> names = symbolic_dims(*program, fn);
    std::vector<std::string> dynamic;
    for (std::size_t i = 0; i < names.size() && i < 6; ++i)
      if (config[1] >> i & 1) dynamic.push_back(names[i]);
    auto extent_of = [&](const std::string& name) -> std::int64_t {
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] != name) continue;
        for (const auto& d : dynamic)
          if (d == name) return -1;
        return i < 6 ? kExtents[config[2 + i] % std::size(kExtents)] : 256;
      }
      return 256;
    };
    std::vector<abi::ArgSignature> args;
    for (const auto& p : fn.params) {
      abi::ArgSignature a;
      if (!p.type.has_shape) {
        a.is_tensor = false;
        DType scalar = DType::f32;
        a.is_integer = !(p.type.kind == frontend::ast::TypeKind::element && parse_dtype(p.type.name, scalar) &&
                         is_floating(scalar));
        args.push_back(a);
        continue;
      }
      if (!parse_dtype(p.type.name, a.dtype)) a.dtype = DType::f32;
      if (args.empty() && (config[1] & 0x80)) a.dtype = a.dtype == DType::f32 ? DType::u8 : DType::f32;
      for (const auto& dim : p.type.shape) {
        const auto* n = std::get_if<frontend::ast::Name>(&dim->node);
        const std::int64_t constant = constant_dim(*program, *dim);
        a.shape.push_back(constant != -2 ? constant : n ? extent_of(n->name) : 256);
      }
      args.push_back(a);
    }
    const std::string arch = kArchs[config[0] % std::size(kArchs)];
    generate_with_middle_end(*program, fn, args, dynamic, kArchs[config[0] % std::size(kArchs)]);
  } catch (const Error& e) {
    (void)e.what();
  }
  return 0;
}
