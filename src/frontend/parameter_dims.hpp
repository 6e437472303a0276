// Parameters of a rank only (`f32 mdspan<2> a`) are given their dims right
// after parsing, so every later stage sees a parameter's rank in its shape.
#pragma once

#include <cstdint>

#include "frontend/ast.hpp"

namespace croq::frontend {

// The most dims a parameter of a rank only may have (`f32 mdspan<8>`).
inline constexpr std::int64_t kMaxParameterRank = 8;

// Gives each parameter of a rank only (`f32 mdspan<2> a`) that many dims
// without a name, as if written `f32 [?, ?] a`: the call gives each extent.
// A rank that is not a number (or a #define of one) from 1 to
// kMaxParameterRank stays a rank only, for sema to refuse. `rank` is kept, so
// printers still show the form written.
void name_rank_only_parameters(ast::Program& program);

}  // namespace croq::frontend
