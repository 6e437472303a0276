// The index-width pass (passes.hpp, choose_index_width): lowering builds
// index arithmetic once, in its 32-bit form with the 64-bit form beside it
// where they differ (ir/index_width.hpp); this pass chooses for the kernel.
#include <cstdint>
#include <limits>

#include "ir/index_width.hpp"
#include "ir/walk.hpp"
#include "passes/passes.hpp"

namespace croq::passes {

void choose_index_width(ir::Kernel& kernel) {
  if (!kernel.largest_index) return;  // chosen already
  const bool wide = *kernel.largest_index > std::numeric_limits<std::int32_t>::max();
  kernel.index = wide ? ir::Type::i64() : ir::Type::i32();
  kernel.largest_index.reset();
  ir::IndexWidth resolve(wide);
  for (ir::Accumulator& a : kernel.accumulators) a.fill = resolve(a.fill);
  if (!kernel.body) return;
  ir::for_each_stmt(*kernel.body, [&](ir::Stmt& s) {
    if (auto* let = std::get_if<ir::Let>(&s.node)) let->type = resolve.type(let->type);
    if (auto* loop = std::get_if<ir::For>(&s.node)) loop->type = resolve.type(loop->type);
    ir::for_each_expr(s, [&](ir::ExprRef& e) { e = resolve(e); });
  });
}

}  // namespace croq::passes
