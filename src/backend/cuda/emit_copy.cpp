// Copy loops: one loop over the destination's elements, strided over the
// running threads when the copy is cooperative, with `vector` elements per
// access where the vectorization pass found that aligned, tail guards where
// a tile can reach past its tensor, and the padding of dma.pad.
#include "backend/cuda/cuda_printer.hpp"
#include "support/checked_int.hpp"

namespace croq::backend::cuda {

namespace {

// The type of a copy loop's counter and coordinates: the loop runs over
// `space` and its coordinates stay below `extent`.
const char* element_index_type(const std::vector<std::int64_t>& space, const std::vector<std::int64_t>& extent) {
  const bool wide = support::element_count(space) > 0x7fffffff || support::element_count(extent) > 0x7fffffff;
  return wide ? "long long" : "int";
}

}  // namespace

std::string Printer::tile_element(const ir::Tile& t, const std::vector<std::string>& idx) const {
  std::vector<std::string> coords;
  for (std::size_t d = 0; d < idx.size(); ++d) coords.push_back(add_text(expr(t.origin[d]), idx[d]));
  return element(t.buffer, t.slot ? expr(t.slot) : "", coords);
}

// The condition for window element `idx` to lie inside its buffer and below
// its runtime extents; empty when the window never reaches past either.
std::string Printer::in_buffer(const ir::Tile& t, const std::vector<std::string>& idx) const {
  std::string ok;
  for (std::size_t d = 0; d < t.extent.size(); ++d) {
    if (!t.exact) ok += (ok.empty() ? "" : " && ") + add_text(expr(t.origin[d]), idx[d]) + " < " + dim_text(t.buffer, d);
    if (d < t.limit.size() && t.limit[d]) ok += (ok.empty() ? "" : " && ") + idx[d] + " < " + expr(t.limit[d]);
  }
  return ok;
}

void Printer::copy(const ir::CopyTiles& c) {
  if (c.pad) {
    pad(c);
    return;
  }
  const std::int64_t vec = c.vector > 0 ? c.vector : 1;
  const std::int64_t row = c.dst.extent.empty() ? 1 : c.dst.extent.back();
  if (vec == 1) {
    copy_loop(c, 1, 0, row);
    return;
  }
  const std::int64_t body = row / vec * vec;
  const std::int64_t bytes = vec * static_cast<std::int64_t>(dtype_size(kernel_.buffers[static_cast<std::size_t>(c.dst.buffer)].dtype));
  line("// " + std::to_string(bytes) + "-byte vectors of " + std::to_string(vec) + " elements" +
       (body < row ? ", then the last " + std::to_string(row - body) + " of each row one by one" : ""));
  copy_loop(c, vec, 0, body);
  if (body < row) copy_loop(c, 1, body, row - body);
}

// Opens a loop over the row-major index `space` of the copy's destination
// and declares one coordinate per dimension (the innermost one scaled by
// `vec` and offset by `inner_begin`); the caller closes it.
std::vector<std::string> Printer::open_element_loop(const ir::CopyTiles& c, const std::vector<std::int64_t>& space,
                                                    std::int64_t vec, std::int64_t inner_begin) {
  const std::int64_t n = *support::checked_product(space);  // at most the copy's elements, checked in lowering
  const std::string type = element_index_type(space, c.dst.extent);
  const std::string e = fresh("e");
  if (c.cooperative)
    line("for (" + type + " " + e + " = " + expr(c.set.tid) + "; " + e + " < " + std::to_string(n) + "; " + e + " += " +
         expr(c.set.count) + ") {");
  else
    line("for (" + type + " " + e + " = 0; " + e + " < " + std::to_string(n) + "; ++" + e + ") {");
  indent();
  std::vector<std::string> idx(space.size());
  std::int64_t inner = 1;
  for (std::size_t d = space.size(); d-- > 0;) {
    idx[d] = fresh("i");
    std::string t = inner == 1 ? e : "(" + e + " / " + std::to_string(inner) + ")";
    if (d > 0) t = "(" + t + " % " + std::to_string(space[d]) + ")";
    if (d + 1 == space.size()) t = add_text(std::to_string(inner_begin), mul_text(t, vec));
    line("const " + type + " " + idx[d] + " = " + t + ";");
    inner *= space[d];
  }
  return idx;
}

// One copy loop over the destination with its innermost dimension limited
// to [inner_begin, inner_begin + inner_count), `vec` elements per access.
// Cooperative copies give consecutive threads consecutive accesses, so a
// warp reads and writes contiguous runs (coalesced).
void Printer::copy_loop(const ir::CopyTiles& c, std::int64_t vec, std::int64_t inner_begin, std::int64_t inner_count) {
  const ir::Tile& src = c.src;
  const ir::Tile& dst = c.dst;
  const DType dtype = kernel_.buffers[static_cast<std::size_t>(dst.buffer)].dtype;
  std::vector<std::int64_t> space = dst.extent;
  if (!space.empty()) space.back() = inner_count / vec;
  std::vector<std::string> dst_idx = open_element_loop(c, space, vec, inner_begin);
  std::vector<std::string> src_idx(src.extent.size());
  auto dst_dim = [&](std::size_t d) { return c.perm.empty() ? d : static_cast<std::size_t>(c.perm[d]); };
  for (std::size_t d = 0; d < src.extent.size(); ++d) src_idx[d] = dst_idx[dst_dim(d)];
  if (vec > 1) {  // exact windows only: no guards
    const std::size_t bytes = static_cast<std::size_t>(vec) * dtype_size(dtype);
    const char* type = bytes == 16 ? "int4" : bytes == 8 ? "int2" : "int";
    line(std::string("*reinterpret_cast<") + type + "*>(&" + tile_element(dst, dst_idx) + ") = *reinterpret_cast<const " +
         type + "*>(&" + tile_element(src, src_idx) + ");");
    dedent();
    line("}");
    return;
  }
  // Guards: the source window may reach past its buffer (tails) or be
  // smaller than the destination (zfill); the destination may reach past
  // its buffer (tail stores).
  std::string src_ok = in_buffer(src, src_idx), dst_ok = in_buffer(dst, dst_idx);
  bool smaller_source = false;
  for (std::size_t d = 0; d < src.extent.size(); ++d)
    if (src.extent[d] < dst.extent[dst_dim(d)]) {
      src_ok += (src_ok.empty() ? "" : " && ") + src_idx[d] + " < " + std::to_string(src.extent[d]);
      smaller_source = true;
    }
  const std::string load = tile_element(src, src_idx), store = tile_element(dst, dst_idx);
  const std::string value = src_ok.empty() ? load : "(" + src_ok + ") ? " + load + " : " + typed(dtype, "0");
  const std::string statement = store + " = " + value + ";";
  // Nothing valid to write: leave the destination alone unless asked to
  // zero it (fresh shared/local tiles of the source's shape are zero-filled).
  const bool global_dst = kernel_.buffers[static_cast<std::size_t>(dst.buffer)].space == ir::Space::global;
  if (!src_ok.empty() && !c.zfill && (global_dst || smaller_source)) dst_ok += (dst_ok.empty() ? "" : " && ") + src_ok;
  line(dst_ok.empty() ? statement : "if (" + dst_ok + ") " + statement);
  dedent();
  line("}");
}

// dma.pad<low, high, mid, value>: destination coordinate d reads source
// coordinate (d - low) / (mid + 1) when that is a source element.
void Printer::pad(const ir::CopyTiles& c) {
  const ir::Tile& src = c.src;
  const ir::Tile& dst = c.dst;
  const ir::Padding& pad = *c.pad;
  const DType dtype = kernel_.buffers[static_cast<std::size_t>(dst.buffer)].dtype;
  std::vector<std::string> dst_idx = open_element_loop(c, dst.extent, 1, 0), src_idx(dst.extent.size());
  std::string inside;
  auto also = [&](const std::string& cond) { inside += (inside.empty() ? "" : " && ") + cond; };
  for (std::size_t d = 0; d < dst.extent.size(); ++d) {
    std::string shifted = pad.low[d] ? "(" + dst_idx[d] + " - " + std::to_string(pad.low[d]) + ")" : dst_idx[d];
    src_idx[d] = fresh("s");
    const std::int64_t pitch = pad.mid[d] + 1;
    line(std::string("const ") + element_index_type(dst.extent, dst.extent) + " " + src_idx[d] + " = " + (pitch == 1 ? shifted : shifted + " / " + std::to_string(pitch)) + ";");
    if (pad.low[d]) also((pitch == 1 ? src_idx[d] : shifted) + " >= 0");
    if (pitch > 1) also(shifted + " % " + std::to_string(pitch) + " == 0");
    if (pad.high[d] || pitch > 1) also(src_idx[d] + " < " + std::to_string(src.extent[d]));
  }
  // Source elements past the end of their tensor (tails) read as zero, as in dma.copy.
  std::string load = tile_element(src, src_idx);
  const std::string src_ok = in_buffer(src, src_idx);
  if (!src_ok.empty()) load = "((" + src_ok + ") ? " + load + " : " + typed(dtype, "0") + ")";
  const std::string fill = typed(dtype, expr(pad.value));
  const std::string value = inside.empty() ? load : "(" + inside + ") ? " + load + " : " + fill;
  const std::string dst_ok = in_buffer(dst, dst_idx);
  const std::string statement = tile_element(dst, dst_idx) + " = " + value + ";";
  line(dst_ok.empty() ? statement : "if (" + dst_ok + ") " + statement);
  dedent();
  line("}");
}

}  // namespace croq::backend::cuda
