// Shared by the `croq host` tests: turn a Croqtile file with host code into
// a C++ program with the croq command, and build it against libcroqjit.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/process.hpp"

namespace croq::test {

struct HostProgram {
  ProcessResult generated;  // croq host
  ProcessResult built;      // the C++ compiler
  std::string binary;       // the program, when both succeeded
  bool ok() const { return generated.exit_code == 0 && built.exit_code == 0; }
};

// Generates `co_file` into `dir`/NAME.cpp and builds `dir`/NAME. With
// `cuda_types`, choreo.hpp uses the CUDA toolkit's element types (and the
// program links its runtime); without, its own.
inline HostProgram build_host_program(const std::string& co_file, const std::filesystem::path& dir,
                                      const std::string& name, bool cuda_types) {
  HostProgram p;
  const std::string cpp = (dir / (name + ".cpp")).string();
  p.generated = run_process({CROQ_BINARY_DIR "/croq", "host", co_file, "-o", cpp}, {}, dir);
  if (p.generated.exit_code != 0) return p;
  std::vector<std::string> argv = {CROQ_HOST_CXX, "-std=c++20", "-O0", "-w", "-pthread", "-I" CROQ_INCLUDE_DIR};
  if (cuda_types) argv.push_back("-I" CROQ_CUDA_INCLUDE);
  else argv.push_back("-DCROQ_CHOREO_NO_CUDA");
  const std::string binary = (dir / name).string();
  for (std::string a : {cpp, std::string("-o"), binary, std::string("-L" CROQ_LIBRARY_DIR), std::string("-lcroqjit"),
                        std::string("-Wl,-rpath," CROQ_LIBRARY_DIR)})
    argv.push_back(a);
  if (cuda_types) {
    for (std::string a : {std::string("-L" CROQ_CUDART_DIR), std::string("-lcudart"),
                          std::string("-Wl,-rpath," CROQ_CUDART_DIR)})
      argv.push_back(a);
  }
  p.built = run_process(argv, {}, dir);
  if (p.built.exit_code == 0) p.binary = binary;
  return p;
}

}  // namespace croq::test
