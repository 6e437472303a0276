#include "pipeline/generated_dump.hpp"

#include <filesystem>
#include <fstream>

#include "support/env.hpp"
#include "support/hash.hpp"

namespace croq::pipeline {

const std::string& generated_dump_dir() {
  static const std::string dir = support::env_string("CROQ_DUMP_GENERATED").value_or("");
  return dir;
}

void dump_generated(const std::string& dir, const frontend::ast::Program& program,
                    const frontend::ast::Function& function, const std::vector<abi::ArgSignature>& args,
                    const target::Target& target, const GenerateOptions& options, int k,
                    const GeneratedKernel& generated) {
  support::Hasher128 h;
  h.field(program.source).field(function.name).field(target.arch).field(std::to_string(options.max_shared_bytes));
  for (const std::string& d : options.dynamic_dims) h.field(d);
  for (const abi::ArgSignature& a : args) {
    std::string text = std::to_string(a.is_tensor) + "," + std::to_string(static_cast<int>(a.dtype)) + "," +
                       std::to_string(a.is_integer) + "," + std::to_string(a.is_stream) + "," +
                       std::to_string(a.align_bytes);
    for (std::int64_t e : a.shape) text += "," + std::to_string(e);
    h.field(text);
  }
  const abi::LaunchConfig& l = generated.launch;
  auto three = [](const std::array<unsigned, 3>& v) {
    return std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]);
  };
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream out(std::filesystem::path(dir) / (h.digest().hex() + "-" + std::to_string(k) + ".cu"),
                    std::ios::binary | std::ios::trunc);
  out << "// entry " << generated.entry << " grid " << three(l.grid) << " block " << three(l.block) << " shared "
      << l.shared_bytes << " cluster " << three(l.cluster) << " cooperative " << l.cooperative << " params "
      << generated.params.size() << "\n"
      << generated.cuda_source;
}

}  // namespace croq::pipeline
