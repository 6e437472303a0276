// Where an unannotated parallel level runs (docs/guide/language.md,
// "Parallel mapping"): Croqtile's levels nest block, group-4, group, thread
// from the outside in, and an unannotated level takes the one its place in
// the nest leaves it.
#pragma once

#include <cstddef>
#include <string>

#include "frontend/ast.hpp"

namespace croq::sema::detail {

struct InferredLevel {
  // The level's space; `none` for a level at the top of a kernel with no
  // parallel level below it (it maps by what it holds: sema.hpp's Mapping).
  frontend::ast::SpaceSpecifier space = frontend::ast::SpaceSpecifier::none;
  // Why no level fits, when the run of unannotated levels from this one to
  // the innermost level has more levels than the nest leaves room for
  // (`space` is then `thread`); empty otherwise. A run that ends at an
  // annotated level that does not fit is that level's error, not this one's.
  std::string unfit;
};

// The space of unannotated level `level_index` of `p`, inside a level of
// space `outer` (`none` at the top of a kernel). Where the statements
// nested in it lead to different choices, the outermost one is taken.
InferredLevel infer_level(frontend::ast::SpaceSpecifier outer, const frontend::ast::Parallel& p,
                          std::size_t level_index);

}  // namespace croq::sema::detail
