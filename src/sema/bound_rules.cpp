#include "sema/bound_rules.hpp"

#include <algorithm>

namespace croq::sema {

Verdict pad_padding(const char* part, std::int64_t value) {
  if (value < 0)
    return Violation{Rule::pad_negative,
                     std::string("`") + part + "` padding must not be negative, got " + std::to_string(value), ""};
  return std::nullopt;
}

Verdict event_count(std::int64_t n) {
  if (n < 1 || n > 32) return Violation{Rule::event_count, "an event array holds 1 to 32 events, got " + std::to_string(n), ""};
  return std::nullopt;
}

std::int64_t event_product(std::int64_t events, std::int64_t size) {
  std::int64_t product = 0;
  return __builtin_mul_overflow(events, size, &product) ? INT64_MAX : product;
}

Verdict parallel_count(std::int64_t n) {
  if (n <= 0) return Violation{Rule::parallel_count, "a parallel count must be positive, got " + std::to_string(n), ""};
  return std::nullopt;
}

Verdict cluster_size(support::CheckedInt blocks, const std::string& count_text) {
  if (blocks.ok() && blocks.value <= 8) return std::nullopt;
  return Violation{Rule::cluster_size,
                   "a cluster holds at most 8 blocks, got " + (blocks.ok() ? std::to_string(blocks.value) : count_text),
                   "8 is the portable cluster size"};
}

Verdict block_threads(support::CheckedInt threads) {
  if (threads.ok() && threads.value <= 1024) return std::nullopt;
  return Violation{Rule::block_thread_limit,
                   "this parallel level needs " + (threads.ok() ? std::to_string(threads.value) : std::string("more than 2^63")) +
                       " threads in a block; a block has at most 1024",
                   ""};
}

Verdict event_unselected(const std::string& text, std::int64_t count) {
  if (count == 1) return std::nullopt;
  return Violation{Rule::event_array_unselected,
                   "`" + text + "` is an array of " + std::to_string(count) + " events; say which one, e.g. `" + text + "[i]`",
                   ""};
}

Verdict tensor_arithmetic_extents(const std::string& target_text,
                                  const std::vector<std::optional<std::int64_t>>& target_dims,
                                  const std::string& value_text,
                                  const std::vector<std::optional<std::int64_t>>& value_dims) {
  auto shape = [](const std::vector<std::optional<std::int64_t>>& dims) {
    std::string t = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) t += (i ? ", " : "") + (dims[i] ? std::to_string(*dims[i]) : "?");
    return t + "]";
  };
  for (std::size_t i = 1; i <= std::min(target_dims.size(), value_dims.size()); ++i) {
    const auto& x = target_dims[target_dims.size() - i];
    const auto& y = value_dims[value_dims.size() - i];
    if (x && y && *x != *y)
      return Violation{Rule::tensor_arithmetic_shape,
                       "`" + value_text + "` " + shape(value_dims) + " does not fit `" + target_text + "` " +
                           shape(target_dims) + ": their trailing extents differ",
                       "the shorter shape must end the longer one, as [16] ends [32, 16]"};
  }
  return std::nullopt;
}

Verdict array_index(std::int64_t index, std::int64_t count) {
  if (index >= 0 && index < count) return std::nullopt;
  return Violation{Rule::array_index_range,
                   "index " + std::to_string(index) + " is out of range for " + std::to_string(count) + " elements", ""};
}

Verdict inthreads_selection(const std::string& index, std::int64_t count,
                            const std::optional<std::vector<std::int64_t>>& selected) {
  if (!selected)
    return Violation{Rule::inthreads_condition,
                     "the inthreads.async condition must depend only on `" + index + "` (it selects whole thread groups)", ""};
  if (selected->empty())
    return Violation{Rule::inthreads_selection,
                     "the inthreads.async condition selects no `" + index + "` in 0.." + std::to_string(count - 1), ""};
  for (std::size_t i = 1; i < selected->size(); ++i)
    if ((*selected)[i] != (*selected)[i - 1] + 1)
      return Violation{Rule::inthreads_selection,
                       "the inthreads.async condition must select a contiguous range of `" + index + "`", ""};
  return std::nullopt;
}

Violation constant_required(const char* what, const std::string& text, bool runtime_index) {
  if (runtime_index)
    return Violation{Rule::constant_required,
                     std::string(what) + " must be known when the kernel is specialized; `" + text + "` is a runtime index", ""};
  return Violation{Rule::constant_required, std::string(what) + " must be a constant, got `" + text + "`", ""};
}

Violation count_form(const char* what, const std::string& text) {
  return Violation{Rule::count_not_constant,
                   std::string(what) + " must be a constant or computed from a dynamic dim (`M`, `cdiv(M, 64)`, `M / 64`), got `" +
                       text + "`",
                   ""};
}

Verdict element_index(std::int64_t index, std::size_t d, std::int64_t extent) {
  if (index < 0)
    return Violation{Rule::index_negative,
                     "index " + std::to_string(index) + " is out of range for dimension " + std::to_string(d) +
                         " (indices start at 0)",
                     ""};
  if (extent >= 0 && index >= extent)
    return Violation{Rule::index_range,
                     "index " + std::to_string(index) + " is out of range for dimension " + std::to_string(d) + " of extent " +
                         std::to_string(extent),
                     ""};
  return std::nullopt;
}

Verdict view_stride(std::int64_t stride, std::size_t d) {
  if (stride > 0) return std::nullopt;
  return Violation{Rule::view_strides,
                   "stride " + std::to_string(stride) + " of dimension " + std::to_string(d) +
                       " of a strided view is not positive",
                   "a stride counts the elements of the tensor between neighbours of that dimension"};
}

Verdict strided_view_end(const std::string& tensor, std::int64_t last, std::int64_t count) {
  if (last < count) return std::nullopt;
  return Violation{Rule::index_range,
                   "this strided view reaches element " + std::to_string(last) + " of `" + tensor + "`, which has " +
                       std::to_string(count) + " elements",
                   "the last element is at the sum of (offset + extent - 1) * stride over the dimensions"};
}

Verdict span_as_extents(bool positive, const std::string& shape) {
  if (positive) return std::nullopt;
  return Violation{Rule::span_as_shape, "`.span_as` needs positive extents, got " + shape, ""};
}

Violation chunkat_index(const std::string& text) {
  return Violation{Rule::chunkat_needs_index, "`chunkat` takes parallel or loop indices (or `_`), got `" + text + "`",
                   "use `subspan(...).at(...)` for tiles of an explicit size"};
}

Violation extent_of_index(const std::string& text) {
  return Violation{Rule::extent_needs_index, "`#` gives the extent of a parallel or loop index; `" + text + "` is not one", ""};
}

Violation compose_index(const std::string& text) {
  return Violation{Rule::compose_needs_index,
                   "the right side of `#` must be a bounded index (a parallel or loop variable), got `" + text + "`", ""};
}

Verdict moved_count(const std::string& text, std::int64_t count) {
  if (count > 0) return std::nullopt;
  return Violation{Rule::bound_move, "`" + text + "` counts " + std::to_string(count) + " values; a bounded index takes at least one",
                   "move the count by less"};
}

Verdict element_of_index(const std::string& name, std::int64_t size, std::int64_t i) {
  if (i >= 0 && i < size) return std::nullopt;
  return Violation{Rule::pick_index,
                   "`" + name + "` has " + std::to_string(size) + (size == 1 ? " element" : " elements") + "; `" + name +
                       "(" + std::to_string(i) + ")` is not one of them",
                   "elements count from 0"};
}

Verdict index_value(const std::string& text, std::int64_t count, std::int64_t i) {
  if (i < count && i >= -count) return std::nullopt;
  return Violation{Rule::pick_index,
                   "`" + text + "` takes " + std::to_string(count) + " values; `(" + std::to_string(i) + ")` is not one of them",
                   "values count from 0, and from -1 backwards from the last"};
}

Verdict buffer_array_size(std::int64_t n) {
  if (n >= 1) return std::nullopt;
  return Violation{Rule::buffer_array_empty, "an array of buffers needs at least one", ""};
}

Verdict align_multiple(const std::string& text, std::int64_t m) {
  if (m > 0) return std::nullopt;
  return Violation{Rule::constant_arithmetic, "`" + text + "` aligns to a positive multiple, got " + std::to_string(m), ""};
}

Verdict returned_declaration(const std::string& name, const std::string& declared, const std::string& returned) {
  if (declared == returned) return std::nullopt;
  return Violation{Rule::returned_declaration, "`" + name + "` is declared " + declared + " but the function returns " + returned,
                   ""};
}

Verdict tma_in_threads(bool single) {
  if (single) return std::nullopt;
  return Violation{Rule::tma_scope,
                   "tma.copy runs at block or warpgroup scope, or in a thread-level parallel of one thread; this one runs "
                   "in many threads",
                   ""};
}

Verdict inthreads_regions(std::int64_t taken, int first_id) {
  const std::int64_t available = 16 - first_id;
  if (taken < available) return std::nullopt;
  const std::string first = std::to_string(first_id);
  return Violation{Rule::inthreads_limit,
                   "at most " + std::to_string(available) + " inthreads.async regions in a block (named barriers " +
                       first + "..15; " +
                       (first_id == 1 ? std::string("barrier 0 is the block barrier")
                                      : "0.." + std::to_string(first_id - 1) + " are the source's, for __bar_arrive and __bar_sync") +
                       ")",
                   ""};
}

std::string inthreads_selector(const std::string& index, std::int64_t unit, const std::string* thread_index) {
  return thread_index ? index + " * " + std::to_string(unit) + " + " + *thread_index : index;
}

Verdict inthreads_whole_warps(const std::string& index, std::int64_t first, std::int64_t threads) {
  if (first % 32 == 0 && threads % 32 == 0) return std::nullopt;
  return Violation{Rule::inthreads_needs_group,
                   "this inthreads.async selects `" + index + "` " + std::to_string(first) + ".." +
                       std::to_string(first + threads - 1) +
                       "; in a thread level libcroqjit runs regions of whole warps (32 threads from a multiple of 32)",
                   "select a multiple of 32 threads, or split the level into `: group` warps"};
}

}  // namespace croq::sema
