// Shared tiles that mma.store writes (the generic proxy: each thread its
// registers) and a WGMMA then reads through a descriptor (the async proxy):
// every writer makes its writes visible to the async proxy
// (fence.proxy.async) and waits for the other writers before the multiply
// is issued. A tile indexed by the warpgroup (`ds_s[p - 1]`) is each
// warpgroup's own: its barrier is the warpgroup's. The attention
// backward's dSᵀ, staged by mma.store and read as an M-major lhs
// (mma.col.col), is such a tile. (A later write waits for the multiply
// through the completion pass: a warpgroup's WGMMA completes as a whole.)
#include "lower/lowering.hpp"

namespace croq::lower::detail {

void MmaLowering::note_generic_write(int id) {
  const ir::Buffer& b = buffer(id);
  if (b.space == ir::Space::shared) generic_written_tiles_.insert(b.alias_of >= 0 ? b.alias_of : id);
}

void MmaLowering::fence_before_async_read(const View& tile, const SourceLocation& where) {
  const ir::Buffer& b = buffer(tile.buffer);
  if (b.space != ir::Space::shared || !generic_written_tiles_.count(b.alias_of >= 0 ? b.alias_of : tile.buffer)) return;
  emit_node(ir::FenceProxyAsync{});
  emit_unit_barrier(where, per_warpgroup_tile(tile));
}

}  // namespace croq::lower::detail
