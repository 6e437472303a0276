// The croq subcommands that specialize and run kernels.
#pragma once

#include <string>
#include <vector>

#include "croq/error.hpp"
#include "croq/options.hpp"

namespace croq::cli {

// For `croq check`: each __co__ function whose shapes are all constant (no
// symbolic dim, so no call is needed to size it) specialized as croq::compile
// would (sema, lowering, the passes, CUDA text; no NVRTC), for `functions`
// (empty: every one). What that refuses comes back as warnings saying
// croq::compile rejects it, so `croq check` never accepts silently what
// compile refuses for the shapes the source fixes.
std::vector<Diagnostic> constant_shape_refusals(const std::string& source, const CompileOptions& options,
                                                const std::vector<std::string>& functions);

int run_compile(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_bench(const std::vector<std::string>& args);

}  // namespace croq::cli
