// The rules whose value may be known only once a kernel is specialized (a
// symbolic dim, or a value derived from one): sema applies each where the
// value is a constant of the source, and lowering, the one place after
// bind, where it is not. Each rule's test and message live here, once;
// rules.def lists them with the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sema/rules.hpp"
#include "support/checked_int.hpp"

namespace croq::sema {

// The names of values in the messages of both stages ("a parallel count must be
// a constant, got ...").
namespace what {
inline constexpr const char* parallel_count = "a parallel count";
inline constexpr const char* loop_bound = "a loop bound";
inline constexpr const char* tile_extent = "a tile extent";
inline constexpr const char* chunk_count = "a chunk count";
inline constexpr const char* element_index = "the element index";
inline constexpr const char* bounded_index_value = "the value of a bounded index";
inline constexpr const char* span_dimension = "the dimension of `.span(i)`";
inline constexpr const char* buffer_count = "the number of buffers";
inline constexpr const char* event_count = "the number of events";
inline constexpr const char* transp_dimension = "a transp<> dimension";
inline constexpr const char* padding = "a padding";
inline constexpr const char* step = "a step";
inline constexpr const char* view_stride = "a view stride";
inline constexpr const char* template_argument = "a template argument of a __device__ function";
}  // namespace what

struct Violation {
  Rule rule;
  std::string message;
  std::string hint;
};
using Verdict = std::optional<Violation>;

// `dma.pad`'s `part` ("low", "high", "mid") padding of `value` elements.
Verdict pad_padding(const char* part, std::int64_t value);
// `shared event e[n]`.
Verdict event_count(std::int64_t n);
// The events of `e[..][size]` given those of `e[..]` (INT64_MAX past it): event_count checks the product.
std::int64_t event_product(std::int64_t events, std::int64_t size);
// One count of a parallel level (`by n`, `by [m, n]`).
Verdict parallel_count(std::int64_t n);
// The blocks of a cluster: the counts of a `: cluster` level (their product,
// or an overflow); `count_text`: the count as written, shown on an overflow.
Verdict cluster_size(support::CheckedInt blocks, const std::string& count_text);
// The threads of a thread, group or group-4 level (its count times 1, 32
// or 128 threads per instance; an overflow is past the limit too).
Verdict block_threads(support::CheckedInt threads);
// `e` (written `text`), an event array of `count` events, used as one event.
Verdict event_unselected(const std::string& text, std::int64_t count);
// `target op= value` of whole tensors (written `target_text`, `value_text`;
// dims unknown until bound are empty): the shorter shape must end the longer.
Verdict tensor_arithmetic_extents(const std::string& target_text,
                                  const std::vector<std::optional<std::int64_t>>& target_dims,
                                  const std::string& value_text,
                                  const std::vector<std::optional<std::int64_t>>& value_dims);
// `[index]` of an array of `count` buffers, events or accumulators.
Verdict array_index(std::int64_t index, std::int64_t count);
// An inthreads.async condition over `index` of a group level of `count`
// groups: the groups it selects (nullopt: it depends on more than `index`),
// a contiguous range of one group or more.
Verdict inthreads_selection(const std::string& index, std::int64_t count,
                            const std::optional<std::vector<std::int64_t>>& selected);
// `e` (written `text`), which `what` needs as a value known when the
// kernel is specialized: a runtime index, or another runtime value.
Violation constant_required(const char* what, const std::string& text, bool runtime_index);
// `e` (written `text`), used as `what` (a parallel count, a loop bound):
// not a constant nor a dim, a cdiv of one or a dim divided by a constant.
Violation count_form(const char* what, const std::string& text);
// `.at` index `index` in dimension `d` of extent `extent` (-1: unknown).
Verdict element_index(std::int64_t index, std::size_t d, std::int64_t extent);
// Stride `stride` of dimension `d` of a strided `.view(... : strides)`.
Verdict view_stride(std::int64_t stride, std::size_t d);
// A strided view of `tensor` (`count` elements) whose last element is
// element `last` of its storage (flat, row-major).
Verdict strided_view_end(const std::string& tensor, std::int64_t last, std::int64_t count);
// `.span_as` extents, `shape` as "[a, b]" (`?` for the unknown ones).
Verdict span_as_extents(bool positive, const std::string& shape);
// A `chunkat` argument (written `text`) that is not a bounded index (one
// whose count is known when the kernel is specialized).
Violation chunkat_index(const std::string& text);
// `#x` of `x` (written `text`), which is not a bounded index.
Violation extent_of_index(const std::string& text);
// `a # b` with `b` (written `text`) not a bounded index.
Violation compose_index(const std::string& text);
// `text` (`q #- 1`), a bounded index counted as `count` values.
Verdict moved_count(const std::string& text, std::int64_t count);
// `name(i)` of a shape or tuple of `size` elements.
Verdict element_of_index(const std::string& name, std::int64_t size, std::int64_t i);
// `y(i)` of a bounded index `y` (written `text`) of `count` values
// (negative `i` from the end).
Verdict index_value(const std::string& text, std::int64_t count, std::int64_t i);
// `shared T [...] b[n]`: an array of `n` buffers.
Verdict buffer_array_size(std::int64_t n);
// `alignup(x, m)` / `aligndown(x, m)` (written `text`) of a multiple `m`.
Verdict align_multiple(const std::string& text, std::int64_t m);
// The returned tensor `name` declared `declared` while the function
// returns `returned` (element type and shape, as text).
Verdict returned_declaration(const std::string& name, const std::string& declared, const std::string& returned);
// A tma.copy in a thread level: `single` when the level is of one thread.
Verdict tma_in_threads(bool single);
// A block's next inthreads.async region after `taken` named barriers of
// its own, which start at `first_id` (8 where the source calls __bar_sync).
Verdict inthreads_regions(std::int64_t taken, int first_id = 1);
// What an inthreads.async condition selects values of, as the messages
// name it: `index`, or `index * unit + thread_index` when it also tests the
// index of the thread level spanning each group of `unit` threads.
std::string inthreads_selector(const std::string& index, std::int64_t unit, const std::string* thread_index);
// inthreads.async in a thread level selects whole warps: threads [first,
// first + threads) of the level `index` (its named barrier counts warps).
Verdict inthreads_whole_warps(const std::string& index, std::int64_t first, std::int64_t threads);

}  // namespace croq::sema
