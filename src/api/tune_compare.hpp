// The default check of croq::tune: a configuration's outputs against the
// reference configuration's (TuneOptions::check documents the rule).
#pragma once

#include <string>

#include "croq/tensor.hpp"
#include "croq/tune.hpp"

namespace croq::detail {

// Why host tensor `got` differs from `want` (same dtype and shape expected),
// or empty when it matches: integers exactly, floating types within
// atol + rtol * |want| (rtol, atol < 0: the defaults by dtype). `what`
// names the tensor in the message ("the result").
std::string compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol, const std::string& what);

// compare_tensors over a whole TuneOutputs (result and written arguments).
std::string compare_outputs(const TuneOutputs& got, const TuneOutputs& want, double rtol, double atol);

}  // namespace croq::detail
