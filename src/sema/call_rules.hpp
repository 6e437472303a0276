// The shape-dependent rule of `call f(args)` of a __co_device__ function,
// of bound_rules.hpp's kind: sema applies it where the arguments' extents are
// constants of the source, lowering where they are known once the kernel is
// specialized. Its own header: only those two places include it.
#pragma once

#include <cstdint>
#include <string>

#include "sema/bound_rules.hpp"

namespace croq::sema {

// Dim `dim` of the callee's parameters, `earlier` by an earlier argument,
// is `now` in dim `d` of the argument written `arg`.
inline Verdict call_dim_agrees(const std::string& callee, const std::string& dim, std::int64_t earlier,
                               std::int64_t now, std::size_t d, const std::string& arg) {
  if (earlier == now) return std::nullopt;
  return Violation{Rule::call_argument,
                   "`" + dim + "` is " + std::to_string(earlier) + " by an earlier argument of `call " + callee +
                       "`, but " + std::to_string(now) + " in dim " + std::to_string(d) + " (`" + arg + "`)",
                   "pass tensors whose extents agree on `" + dim + "`"};
}

}  // namespace croq::sema
