// croq precompile: fill the kernel cache ahead of time, without a GPU, for
// the signatures given with --shape or listed in a --signatures file; and
// the explanation `croq compile --explain` prints.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/kernel.hpp"

namespace croq::cli {

// croq precompile FILE.co [--shape N=V]... [--signatures FILE] [--define N=V]...
//                 [--entry NAME] [--arch A[,B...]] [--source-name NAME] [--json]
int run_precompile(const std::vector<std::string>& args);

// One signature per line of a signatures file: whitespace-separated
// NAME=VALUE dim bindings (VALUE as --shape takes it), `#` starts a comment,
// blank lines are skipped. Returns false with `error` naming the file and
// line of the first bad line.
bool parse_signatures(const std::string& text, const std::string& file,
                      std::vector<std::map<std::string, std::int64_t>>& out, std::string& error);

// The arguments prepare() and precompile take for `signature`: views
// without data, zero scalars.
std::vector<Arg> arguments_for(const std::vector<abi::ArgSignature>& signature);

// The lines `croq compile --explain` prints for a specialization.
std::string explanation(const std::string& function, const SpecializationStats& stats);

}  // namespace croq::cli
