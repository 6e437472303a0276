// The size of an expression's text, measured on the IR (see expr_size.hpp).
#include "ir/expr_size.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "ir/text.hpp"

namespace croq::ir {

namespace {

class TextSize {
 public:
  TextSize(const Kernel& kernel, std::size_t cap) : kernel_(kernel), cap_(cap) {}

  std::size_t of(const ExprRef& e) {
    if (!e) return 0;
    if (auto found = memo_.find(e.get()); found != memo_.end()) return found->second;
    std::size_t size = own(*e);
    if (e->kind == ExprKind::by_index_width)  // one of them is printed: the larger counts
      for (const ExprRef& operand : e->operands) size = std::max(size, of(operand));
    else
      for (const ExprRef& operand : e->operands) size = sum(size, of(operand));
    memo_[e.get()] = size;
    return size;
  }

 private:
  std::size_t sum(std::size_t a, std::size_t b) const { return a + b > cap_ ? cap_ + 1 : a + b; }

  // The characters of the node itself, without its operands'.
  std::size_t own(const Expr& e) const {
    const std::size_t separators = e.operands.empty() ? 0 : 2 * (e.operands.size() - 1);
    switch (e.kind) {
      case ExprKind::int_const: return std::to_string(e.value).size();
      case ExprKind::float_literal:
      case ExprKind::var:
      case ExprKind::special:
      case ExprKind::typed_zero: return e.text.size();
      case ExprKind::unary: return 2 + e.op.size();
      case ExprKind::binary: return 4 + e.op.size();
      case ExprKind::select: return 8;
      case ExprKind::element: {  // name{slot}[coords...]: operands[0] is the slot (or null)
        const std::size_t b = static_cast<std::size_t>(e.buffer);
        const std::size_t coords = e.operands.empty() ? 0 : e.operands.size() - 1;
        return (b < kernel_.buffers.size() ? kernel_.buffers[b].name.size() : 1) + 2 + (coords ? 2 * (coords - 1) : 0) +
               (!e.operands.empty() && e.operands[0] ? 2 : 0);
      }
      case ExprKind::address_of: return 1;
      case ExprKind::zero_like: return 11;
      case ExprKind::convert: return 4 + text::type_name(e.type, false).size();
      case ExprKind::math:
      case ExprKind::atomic: return e.op.size() + 2 + separators;
      case ExprKind::by_index_width: return 0;
      case ExprKind::device_call: return e.text.size() + 4 + separators;
    }
    return 1;
  }

  const Kernel& kernel_;
  const std::size_t cap_;
  std::unordered_map<const Expr*, std::size_t> memo_;
};

}  // namespace

std::size_t expression_text_size(const Kernel& kernel, const ExprRef& e, std::size_t cap) {
  return TextSize(kernel, cap).of(e);
}

}  // namespace croq::ir
