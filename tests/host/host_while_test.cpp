// A host `while` loop (host::Stmt::Kind::repeat) in the executor
// (src/host/run_host.cpp): its body runs while the condition holds, read
// again before each round, and launches see each round's scalars.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/host_program.hpp"

namespace croq::host {
namespace {

ExprPtr node(Expr::Kind kind, const std::string& op, std::vector<ExprPtr> operands, std::int64_t value = 0) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->op = op;
  e->operands = std::move(operands);
  e->constant = Value{false, value, 0};
  e->index = kind == Expr::Kind::slot ? static_cast<int>(value) : -1;
  return e;
}
ExprPtr constant(std::int64_t v) { return node(Expr::Kind::constant, "", {}, v); }
ExprPtr slot(int i) { return node(Expr::Kind::slot, "", {}, i); }

// n = 5; while (n > 0) { launch 0; n = n - 2; }: launches with n = 5, 3, 1.
Program countdown() {
  Program p;
  p.function = "countdown";
  p.slots = {"n"};
  p.slot_is_float = {false};
  p.launches_only = false;
  Stmt init;
  init.kind = Stmt::Kind::assign;
  init.slot = 0;
  init.value = constant(5);
  p.body.push_back(init);
  Stmt w;
  w.kind = Stmt::Kind::repeat;
  w.value = node(Expr::Kind::binary, ">", {slot(0), constant(0)});
  Stmt launch;
  launch.kind = Stmt::Kind::launch;
  launch.kernel = 0;
  w.body.push_back(launch);
  Stmt step;
  step.kind = Stmt::Kind::assign;
  step.slot = 0;
  step.value = node(Expr::Kind::binary, "-", {slot(0), constant(2)});
  w.body.push_back(step);
  p.body.push_back(w);
  return p;
}

TEST(HostWhile, BodyRunsWhileTheConditionHoldsWithEachRoundsScalars) {
  std::vector<std::int64_t> seen;
  Hooks h;
  h.argument = [](int) { return Value{}; };
  h.dim = [](const abi::DimSource&) { return std::int64_t{0}; };
  h.launch = [&](int kernel, std::span<const Value> slots) {
    EXPECT_EQ(kernel, 0);
    seen.push_back(slots[0].i);
  };
  h.print = [](std::string_view) {};
  run(countdown(), h);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{5, 3, 1}));
}

TEST(HostWhile, FalseConditionRunsNothing) {
  Program p = countdown();
  p.body[0].value = constant(0);
  int launches = 0;
  Hooks h;
  h.argument = [](int) { return Value{}; };
  h.dim = [](const abi::DimSource&) { return std::int64_t{0}; };
  h.launch = [&](int, std::span<const Value>) { ++launches; };
  h.print = [](std::string_view) {};
  run(p, h);
  EXPECT_EQ(launches, 0);
}

}  // namespace
}  // namespace croq::host
