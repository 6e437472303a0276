#include "sample_sources.hpp"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "../../samples/attention_backward_source.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace croqpy {

namespace {

// The forward's head dims: multiples of 32 up to 256 (attention::Config);
// from 64 where the log-sum-exp is written (its store multiplies through
// the first 64-column slab of Q).
void check_forward_head_dim(const std::string& kind, int head_dim) {
  const int least = kind == "forward_lse" || kind == "varlen_lse" ? 64 : 32;
  if (head_dim < least || head_dim > 256 || head_dim % 32 != 0)
    throw croq::ArgumentError("attention source: head_dim of '" + kind + "' must be a multiple of 32 from " +
                              std::to_string(least) + " to 256, got " + std::to_string(head_dim));
}

std::string attention_source(const std::string& kind, const std::string& element, int head_dim, bool grouped) {
  // The backward's `_dq_atomics` kinds: dQ from kernel 2's atomics instead of a third pass.
  const bool dq_atomics = kind == "backward_dq_atomics" || kind == "varlen_backward_dq_atomics";
  const bool backward = kind == "backward" || kind == "varlen_backward" || dq_atomics;
  if (kind != "forward" && kind != "forward_lse" && kind != "varlen" && kind != "varlen_lse" && !backward)
    throw croq::ArgumentError(
        "attention source: kind must be forward, forward_lse, varlen, varlen_lse, backward, varlen_backward, "
        "backward_dq_atomics or varlen_backward_dq_atomics, got '" + kind + "'");
  if (element != "f16" && element != "bf16")
    throw croq::ArgumentError("attention source: element must be f16 or bf16, got '" + element + "'");
  if (backward) {
    const auto& dims = attention::backward_head_dims;
    if (std::find(std::begin(dims), std::end(dims), head_dim) == std::end(dims))
      throw croq::ArgumentError("attention source: the backward's head_dim must be 64, 128 or 256, got " +
                                std::to_string(head_dim));
    if (grouped)
      throw croq::ArgumentError("attention source: the backward has no grouped variant (expand k and v per query head)");
    return attention::backward_source(element, head_dim, kind.rfind("varlen_", 0) == 0, !dq_atomics);
  }
  check_forward_head_dim(kind, head_dim);
  attention::Config c;
  c.element = element;
  c.head_dim = head_dim;
  c.grouped = grouped;
  c.varlen = kind == "varlen" || kind == "varlen_lse";
  c.with_lse = kind == "forward_lse" || kind == "varlen_lse";
  return attention::source(c);
}

}  // namespace

void bind_sample_sources(nb::module_& m) {
  m.def("_attention_source", &attention_source, nb::arg("kind"), nb::arg("element"), nb::arg("head_dim"),
        nb::arg("grouped") = false,
        "The Croqtile text of samples/attention_source.hpp's forward ('forward'; 'forward_lse': also writing the "
        "rows' log-sum-exp; 'varlen': packed sequences of variable lengths; 'varlen_lse': those with the log-sum-exp) "
        "or samples/attention_backward_source.hpp's backward ('backward'; 'varlen_backward': packed; "
        "'backward_dq_atomics', 'varlen_backward_dq_atomics': dQ from kernel 2's atomics, not a third pass), for element "
        "'f16' or 'bf16'; head dims: "
        "the forward's multiples of 32 up to 256 (from 64 for 'forward_lse'), the backward's 64, 128 and 256. "
        "grouped: key/value heads dividing the query heads (GQA/MQA), forward kinds only.");
}

}  // namespace croqpy
