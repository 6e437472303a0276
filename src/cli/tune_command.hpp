// croq bench --tune NAME=V1,V2,...: the configurations to tune over and the
// tuning step of the bench command (croq::tune on its random arguments).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "croq/kernel.hpp"
#include "croq/options.hpp"
#include "croq/tensor.hpp"

namespace croq::cli {

// One --tune option each; their cross product is the configuration list.
using TuneAxes = std::vector<std::pair<std::string, std::vector<DefineValue>>>;

// Adds the axis of `spec` (NAME=V1,V2,...; values as --define takes them).
// Returns false with `error` set for a malformed spec or a repeated name.
bool parse_tune_axis(const std::string& spec, TuneAxes& axes, std::string& error);

// Tunes `source` over the cross product of `axes` on `arguments` and prints
// the per-configuration table and the choice (or that a recorded choice was
// used). Returns the chosen kernel, or nullopt after printing why none was.
std::optional<Kernel> tune_for_bench(const std::string& source, const CompileOptions& options, const TuneAxes& axes,
                                     const std::vector<Tensor>& arguments);

}  // namespace croq::cli
