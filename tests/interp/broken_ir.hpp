// Shared by the interpret-mode hazard tests: a kernel whose IR a test pass
// breaks after the pass list (the way a wrong pass or lowering would), run
// in the interpreter.
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "api/interpret_call.hpp"
#include "croq/croq.hpp"
#include "ir/ir.hpp"
#include "passes/passes.hpp"
#include "pipeline/pipeline.hpp"

namespace croq::test {

namespace ir = croq::ir;
namespace passes = croq::passes;

// Statements of a Seq tree, with their lists, for the breaking passes.
inline void for_each_list(ir::StmtList& list, const std::function<void(ir::StmtList&)>& f);

inline void for_each_child(ir::Stmt& s, const std::function<void(ir::StmtList&)>& f) {
  std::visit(
      [&](auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::Seq>) for_each_list(n.body, f);
        else if constexpr (std::is_same_v<T, ir::For> || std::is_same_v<T, ir::While> ||
                           std::is_same_v<T, ir::Region> || std::is_same_v<T, ir::WarpgroupRegion>) {
          if (n.body) for_each_child(*n.body, f);
        } else if constexpr (std::is_same_v<T, ir::If>) {
          if (n.then_branch) for_each_child(*n.then_branch, f);
          if (n.else_branch) for_each_child(*n.else_branch, f);
        }
      },
      s.node);
}

inline void for_each_list(ir::StmtList& list, const std::function<void(ir::StmtList&)>& f) {
  f(list);
  for (auto& s : list) for_each_child(*s, f);
}

template <typename Node>
inline void drop_all(ir::Kernel& k) {
  for_each_child(*k.body, [](ir::StmtList& list) {
    std::erase_if(list, [](const ir::StmtPtr& s) { return std::holds_alternative<Node>(s->node); });
  });
}

// Runs `source` for `args` with `breaking` after the pass list, in the interpreter.
inline void run_broken(const char* source, std::vector<croq::Arg> args, void (*breaking)(ir::Kernel&, const passes::PassContext&)) {
  croq::CompileOptions options;
  options.arch = "sm_90a";
  options.interpret = true;
  auto checked = croq::pipeline::check(source, options);
  std::vector<croq::abi::ArgSignature> sig;
  for (const croq::Arg& a : args) {
    croq::abi::ArgSignature s;
    if (a.kind() == croq::Arg::Kind::tensor) {
      s.dtype = a.view().dtype;
      for (std::size_t x : a.view().shape) s.shape.push_back(static_cast<std::int64_t>(x));
    } else {
      s.is_tensor = false;
      s.is_integer = a.kind() == croq::Arg::Kind::integer;
    }
    sig.push_back(s);
  }
  std::vector<passes::Pass> list(passes::pass_list().begin(), passes::pass_list().end());
  list.push_back(passes::Pass{"break_for_test", breaking, {}});
  croq::pipeline::GenerateOptions generate;
  generate.keep_kernel = true;
  generate.passes = list;
  const auto target = croq::pipeline::choose_target("sm_90a", 0);
  auto program = croq::pipeline::generate_program(*checked->program, *checked->function, sig, target.target, generate);
  croq::detail::interpret_program(*checked, program, args, {});
}

// The line of the InterpretError `f` throws (-1: none), its text in `text`.
inline int interpret_error_line(const std::function<void()>& f, std::string& text) {
  try {
    f();
  } catch (const croq::InterpretError& e) {
    text = e.what();
    return e.line();
  }
  text = "no InterpretError";
  return -1;
}

}  // namespace croq::test
