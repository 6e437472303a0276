// `mma.store.mask acc, tile, rows[, cols]` (Croqtile's masked store, for a
// tile at a tensor's edge): writes only the tile's elements (r, c) with
// r < rows and c < cols, counted from the tile's origin; without cols every
// column. The guards are integers computed at run time (negative: nothing
// is written). The accumulator and the tile are checked as for mma.store.
#include "sema/checker.hpp"

namespace croq::sema::detail {

void MmaChecker::mma_store_mask(const Stmt& s, const Mma& m) {
  const std::size_t n = m.operands.size();
  if (!find_modifier(m.modifiers, "mask"))
    fail(Rule::mma_store_mask, s.location,
         "mma.store takes 2 operands, got " + std::to_string(n) + "; only a masked store takes the rows and columns to write",
         "write `mma.store.mask acc, tile, rows, cols;`");
  if (n != 3 && n != 4)
    fail(Rule::mma_store_mask, s.location,
         "mma.store.mask takes 3 or 4 operands (the accumulator, the tile, the rows and optionally the columns to "
         "write), got " + std::to_string(n));
  if (const Modifier* transp = find_modifier(m.modifiers, "transp"))
    fail(Rule::unsupported_modifier, transp->location, "`.transp` with `.mask` on mma.store is not supported yet by libcroqjit",
         "store the accumulator transposed unmasked, or masked untransposed");
  const char* what[] = {"rows", "columns"};
  for (std::size_t i = 2; i < n; ++i) {
    const Expr& guard = *m.operands[i];
    Type g = c_.expressions.expr(guard);
    require_ok(g);
    if (!g.is_number() || g.is_float())
      fail(Rule::mma_store_mask, guard.location,
           std::string("the ") + what[i - 2] + " to write of mma.store.mask are an integer, got `" + text(guard) + "`", "",
           notes_of(g));
  }
  mma_store(s, m);
}

}  // namespace croq::sema::detail
