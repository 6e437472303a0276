// CROQ_DUMP_GENERATED=DIR: each kernel that generate_program produces,
// written as DIR/<key>-<k>.cu (its launch ABI in a comment, then its CUDA
// text), where the key hashes what it was generated from (source,
// function, signature, target, options). Running a test suite with it
// before and after a change to the middle end and comparing the folders
// (scripts/compare_generated.sh) shows every kernel whose code changed.
#pragma once

#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "frontend/ast.hpp"
#include "pipeline/specialize.hpp"
#include "target/target.hpp"

namespace croq::pipeline {

// The folder CROQ_DUMP_GENERATED names; empty when unset.
const std::string& generated_dump_dir();

// Writes `generated` (kernel `k` of the program) to `dir`; failures to
// write are ignored (a debugging aid must not fail a compile).
void dump_generated(const std::string& dir, const frontend::ast::Program& program,
                    const frontend::ast::Function& function, const std::vector<abi::ArgSignature>& args,
                    const target::Target& target, const GenerateOptions& options, int k,
                    const GeneratedKernel& generated);

}  // namespace croq::pipeline
