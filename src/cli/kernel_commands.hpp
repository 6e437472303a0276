// The croq subcommands that specialize and run kernels.
#pragma once

#include <string>
#include <vector>

namespace croq::cli {

int run_compile(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_bench(const std::vector<std::string>& args);

}  // namespace croq::cli
