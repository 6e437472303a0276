// A host program's kernel: the host level of the function's body
// (frontend/host_code.hpp) is the host's; lowering walks it only to reach
// this kernel's parallel statement (or its device work: an element store or
// a copy, a kernel of one thread outside every parallel statement), with
// the function-scope declarations every kernel has, and passes the host
// scalars in scope as parameters.
#include "frontend/host_code.hpp"
#include "lower/lowering.hpp"

namespace croq::lower::detail {

void Lowerer::host_level(const Stmt& s) {
  const bool outermost = &s == fn_.body.get();
  if (outermost) host_scalars_ = frontend::ast::host_scalars(fn_);
  auto scalar_at = [&](const void* site) -> const frontend::ast::HostScalar* {
    for (const auto& h : host_scalars_)
      if (h.site == site) return &h;
    return nullptr;
  };
  auto slot_of = [&](const frontend::ast::HostScalar* h) { return static_cast<int>(h - host_scalars_.data()); };
  const std::size_t visible = host_visible_.size();
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      push();
      for (const auto& c : n.statements) host_level(*c);
      pop();
    } else if constexpr (std::is_same_v<T, Parallel>) {
      if (top_parallels_seen_++ != kernel_index_) return;
      bind_host_scalars();
      stmt(s);
    } else if constexpr (std::is_same_v<T, Declaration>) {
      bool host = false, replicated = true;
      for (const Declarator& d : n.declarators)
        if (const auto* h = scalar_at(&d)) {
          host = true;
          replicated = replicated && h->replicated;
          if (!h->replicated) host_visible_.emplace_back(h->name, slot_of(h));
        }
      if (!host || replicated) stmt(s);  // tensors, events and replicated scalars: every kernel declares them
    } else if constexpr (std::is_same_v<T, Assignment> || std::is_same_v<T, Copy>) {
      if (frontend::ast::is_host_device_work(s)) {  // an element store or a copy: a kernel of its own
        if (top_parallels_seen_++ != kernel_index_) return;
        bind_host_scalars();
        stmt(s);
        return;
      }
      if (const auto* h = scalar_at(&s)) host_visible_.emplace_back(h->name, slot_of(h));
    } else if constexpr (std::is_same_v<T, Loop>) {
      for (const frontend::ast::WithBinding& b : frontend::ast::with_bindings(n))  // a `with`'s names too
        for (const frontend::ast::WithElement& e : frontend::ast::with_elements(b))
          if (const auto* h = scalar_at(e.site)) host_visible_.emplace_back(h->name, slot_of(h));
      push();
      host_level(*n.body);
      pop();
    } else if constexpr (std::is_same_v<T, If>) {
      push();
      host_level(*n.then_branch);
      pop();
      if (n.else_branch) {
        push();
        host_level(*n.else_branch);
        pop();
      }
    } else if constexpr (std::is_same_v<T, While>) {
      push();
      host_level(*n.body);
      pop();
    }
    // Prints, assignments to host scalars, `return` and `sync.global`: the host's.
  }, s.node);
  // Names bound inside a nested statement go out of scope with it.
  if (!outermost && !std::holds_alternative<Declaration>(s.node) && !std::holds_alternative<Assignment>(s.node))
    host_visible_.resize(visible);
  if (outermost && top_parallels_seen_ <= kernel_index_)
    fail(fn_.location, "internal error: a host program without kernel " + std::to_string(kernel_index_));
}

// Each host scalar in scope, as a parameter of the kernel (`host_NAME`):
// its value at this launch.
void Lowerer::bind_host_scalars() {
  for (const auto& [name, slot] : host_visible_) {
    auto it = host_params_.find(slot);
    if (it == host_params_.end()) {
      const bool is_float = host_scalars_[static_cast<std::size_t>(slot)].is_float;
      abi::KernelParam kp;
      kp.kind = is_float ? abi::KernelParam::Kind::floating : abi::KernelParam::Kind::integer;
      kp.name = name;
      kp.host_slot = slot;
      ir::Param param;
      param.kind = kp.kind;
      param.name = "host_" + name + "_" + std::to_string(slot);
      param.type = is_float ? ir::Type{ir::Type::Kind::f64, DType::f64} : ir::Type::i64();
      kernel_.params.push_back(param);
      kernel_.abi.params.push_back(kp);
      Value v;
      v.expr = ir::var(param.name, param.type);
      v.is_float = is_float;
      it = host_params_.emplace(slot, std::move(v)).first;
    }
    define(name, it->second);
  }
}

}  // namespace croq::lower::detail
