#include "sample_sources.hpp"

#include <nanobind/stl/string.h>

#include <string>

#include "../../samples/attention_backward_source.hpp"
#include "../../samples/attention_source.hpp"
#include "croq/croq.hpp"

namespace croqpy {

void bind_sample_sources(nb::module_& m) {
  m.def(
      "_attention_source",
      [](const std::string& kind, const std::string& element, int head_dim) {
        if (kind != "forward" && kind != "forward_lse" && kind != "backward")
          throw croq::ArgumentError("attention source: kind must be forward, forward_lse or backward, got '" + kind + "'");
        if (element != "f16" && element != "bf16")
          throw croq::ArgumentError("attention source: element must be f16 or bf16, got '" + element + "'");
        if (head_dim != 64 && head_dim != 128)
          throw croq::ArgumentError("attention source: head_dim must be 64 or 128, got " + std::to_string(head_dim));
        if (kind == "backward") return attention::backward_source(element, head_dim);
        return attention::source(element, head_dim, true, 2, kind == "forward_lse");
      },
      nb::arg("kind"), nb::arg("element"), nb::arg("head_dim"),
      "The Croqtile text of samples/attention_source.hpp's forward ('forward'; 'forward_lse': also writing the "
      "rows' log-sum-exp) or samples/attention_backward_source.hpp's backward ('backward'), for element 'f16' or "
      "'bf16' and head dim 64 or 128.");
}

}  // namespace croqpy
