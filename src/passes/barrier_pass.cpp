// Barrier placement before shared reads (see passes.hpp): lowering marks
// each place where the threads of a set read shared memory (a read at the
// block's scope, or before a loop or a thread level whose threads may read
// it) with a barrier asked for (ir::Barrier::if_written); this pass keeps
// the ones that follow an element store to what they read since the last
// barrier, in program order, and drops the others.
#include <set>

#include "ir/walk.hpp"
#include "passes/passes.hpp"

namespace croq::passes {

namespace {

class SharedBarriers {
 public:
  explicit SharedBarriers(const ir::Kernel& kernel) : kernel_(kernel) {}

  void place(ir::StmtList& list) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      ir::Stmt& s = *list[i];
      if (auto* b = std::get_if<ir::Barrier>(&s.node)) {
        if (b->if_written == ir::Barrier::kAlways) {
          if (b->scope == ir::Barrier::Scope::set || b->scope == ir::Barrier::Scope::grid) written_.clear();
          continue;
        }
        const bool needed = b->if_written < 0 ? !written_.empty() : written_.count(b->if_written) > 0;
        if (!needed) {
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i--));
          continue;
        }
        b->if_written = ir::Barrier::kAlways;
        written_.clear();
        continue;
      }
      if (const auto* a = std::get_if<ir::Assign>(&s.node)) note_store(*a);
      if (auto* seq = std::get_if<ir::Seq>(&s.node)) place(seq->body);
      for (ir::StmtPtr* body : ir::nested_bodies(s)) place(std::get<ir::Seq>((*body)->node).body);
    }
  }

 private:
  // An element store into a shared buffer (of the buffer a view aliases).
  void note_store(const ir::Assign& a) {
    if (!a.target || a.target->kind != ir::ExprKind::element) return;
    const ir::Buffer& b = kernel_.buffers[static_cast<std::size_t>(a.target->buffer)];
    if (b.space != ir::Space::shared) return;
    written_.insert(b.alias_of >= 0 ? b.alias_of : a.target->buffer);
    written_.insert(b.points_to.begin(), b.points_to.end());  // a select's pointer: any of its buffers
  }

  const ir::Kernel& kernel_;
  std::set<int> written_;  // shared buffers stored to element by element since the last barrier
};

}  // namespace

void place_shared_barriers(ir::Kernel& kernel) {
  SharedBarriers(kernel).place(std::get<ir::Seq>(kernel.body->node).body);
}

}  // namespace croq::passes
