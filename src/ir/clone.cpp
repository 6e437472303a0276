#include "ir/clone.hpp"

#include <type_traits>

namespace croq::ir {

namespace {

StmtPtr clone_or_null(const StmtPtr& s) { return s ? clone(*s) : nullptr; }

}  // namespace

StmtList clone(const StmtList& list) {
  StmtList out;
  out.reserve(list.size());
  for (const StmtPtr& s : list) out.push_back(clone_or_null(s));
  return out;
}

StmtPtr clone(const Stmt& s) {
  auto out = std::make_unique<Stmt>();
  out->where = s.where;
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Seq>) {
      out->node = Seq{clone(n.body), n.braces};
    } else if constexpr (std::is_same_v<T, For>) {
      out->node = For{n.var, n.type, n.begin, n.end, n.step, clone_or_null(n.body), n.unroll, n.pipeline};
    } else if constexpr (std::is_same_v<T, If>) {
      out->node = If{n.condition, clone_or_null(n.then_branch), clone_or_null(n.else_branch)};
    } else if constexpr (std::is_same_v<T, While>) {
      out->node = While{n.condition, clone_or_null(n.body)};
    } else if constexpr (std::is_same_v<T, Region>) {
      out->node = Region{n.mapping, n.unit, clone_or_null(n.body)};
    } else if constexpr (std::is_same_v<T, WarpgroupRegion>) {
      out->node = WarpgroupRegion{n.condition, n.set, n.whole_warpgroups, n.mma, clone_or_null(n.body)};
    } else {
      static_assert(std::is_copy_constructible_v<T>, "a statement holding statements needs its own case");
      out->node = n;
    }
  }, s.node);
  return out;
}

}  // namespace croq::ir
