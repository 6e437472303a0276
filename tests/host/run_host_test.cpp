// The host program's executor (src/host/run_host.cpp) on programs built by
// hand: launches in order with the host scalars of each, prints, branches,
// and the errors of host arithmetic at their line.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "croq/error.hpp"
#include "host/host_program.hpp"

namespace croq::host {
namespace {

ExprPtr constant(std::int64_t v) {
  auto e = std::make_shared<Expr>();
  e->constant = Value{false, v, 0};
  return e;
}
ExprPtr real(double v) {
  auto e = std::make_shared<Expr>();
  e->constant = Value{true, 0, v};
  e->is_float = true;
  return e;
}
ExprPtr slot(int i, bool is_float = false) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::slot;
  e->index = i;
  e->is_float = is_float;
  return e;
}
ExprPtr op(Expr::Kind kind, const std::string& name, std::vector<ExprPtr> operands, int line = 0) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->op = name;
  e->operands = std::move(operands);
  e->line = line;
  return e;
}
Stmt launch(int kernel) {
  Stmt s;
  s.kind = Stmt::Kind::launch;
  s.kernel = kernel;
  return s;
}
Stmt print(std::vector<Stmt::Part> parts) {
  Stmt s;
  s.parts = std::move(parts);
  return s;
}

struct Recorded {
  std::vector<std::string> events;  // "launch K i=..." and printed texts, in order
};

Hooks recording(Recorded& r) {
  Hooks h;
  h.argument = [](int) { return Value{}; };
  h.dim = [](const abi::DimSource&) { return std::int64_t{0}; };
  h.launch = [&r](int kernel, std::span<const Value> slots) {
    std::string e = "launch " + std::to_string(kernel);
    for (const Value& v : slots) e += " " + value_text(v);
    r.events.push_back(e);
  };
  h.print = [&r](std::string_view text) { r.events.emplace_back(text); };
  return h;
}

// for i in [3]: launch 0 with i; then `total` (a float slot) += i * 0.5;
// after the loop: kernel 1 when total > 1, else kernel 2; print it.
TEST(RunHost, LaunchesInOrderWithEachIterationsScalars) {
  Program p;
  p.function = "steps";
  p.slots = {"i", "total"};
  p.slot_is_float = {false, true};
  Stmt loop;
  loop.kind = Stmt::Kind::loop;
  loop.slot = 0;
  loop.value = constant(3);
  loop.body.push_back(launch(0));
  Stmt add;
  add.kind = Stmt::Kind::assign;
  add.slot = 1;
  add.value = op(Expr::Kind::binary, "+", {slot(1, true), op(Expr::Kind::binary, "*", {slot(0), real(0.5)})});
  loop.body.push_back(add);
  p.body.push_back(loop);
  Stmt branch;
  branch.kind = Stmt::Kind::branch;
  branch.value = op(Expr::Kind::binary, ">", {slot(1, true), constant(1)});
  branch.body.push_back(launch(1));
  branch.other.push_back(launch(2));
  p.body.push_back(branch);
  p.body.push_back(print({{"total = ", nullptr}, {"", slot(1, true)}, {"\n", nullptr}}));
  Recorded r;
  run(p, recording(r));
  const std::vector<std::string> want = {"launch 0 0 0.000000", "launch 0 1 0.000000", "launch 0 2 0.500000",
                                         "launch 1 2 1.500000", "total = 1.500000\n"};
  EXPECT_EQ(r.events, want);
}

// for i in [10]: launch 0; finish with i * 2 when i == 2: the loop stops,
// later statements do not run, and run() gives the finished value.
TEST(RunHost, FinishStopsTheProgramWithItsValue) {
  Program p;
  p.function = "first";
  p.slots = {"i"};
  p.slot_is_float = {false};
  p.result = DType::s32;
  Stmt loop;
  loop.kind = Stmt::Kind::loop;
  loop.slot = 0;
  loop.value = constant(10);
  loop.body.push_back(launch(0));
  Stmt stop;
  stop.kind = Stmt::Kind::finish;
  stop.value = op(Expr::Kind::binary, "*", {slot(0), constant(2)});
  Stmt branch;
  branch.kind = Stmt::Kind::branch;
  branch.value = op(Expr::Kind::binary, "==", {slot(0), constant(2)});
  branch.body.push_back(stop);
  loop.body.push_back(branch);
  p.body.push_back(loop);
  p.body.push_back(launch(1));
  Recorded r;
  const std::optional<Value> v = run(p, recording(r));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->i, 4);
  const std::vector<std::string> want = {"launch 0 0", "launch 0 1", "launch 0 2"};
  EXPECT_EQ(r.events, want);
  // A program with a result that ends without returning one is an error.
  p.body.pop_back();
  p.body.front().value = constant(2);
  EXPECT_THROW(run(p, recording(r)), Error);
}

TEST(RunHost, HostArithmeticFaultsNameTheFunctionAndLine) {
  auto failing = [](ExprPtr value) {
    Program p;
    p.function = "f";
    p.slots = {"x"};
    p.slot_is_float = {false};
    Stmt s;
    s.kind = Stmt::Kind::assign;
    s.slot = 0;
    s.value = std::move(value);
    p.body.push_back(s);
    Recorded r;
    try {
      run(p, recording(r));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(failing(op(Expr::Kind::binary, "/", {constant(7), constant(0)}, 12)),
            "`f`: host code at line 12: 7 / 0 divides by zero");
  EXPECT_EQ(failing(op(Expr::Kind::binary, "*", {constant(INT64_MAX), constant(2)}, 3)).rfind("`f`: host code at line 3: ", 0),
            0u);
  EXPECT_EQ(failing(op(Expr::Kind::binary, "<<", {constant(1), constant(64)}, 4)),
            "`f`: host code at line 4: a shift by 64");
  EXPECT_EQ(failing(op(Expr::Kind::call, "cdiv", {constant(5), constant(0)}, 5)), "`f`: host code at line 5: cdiv by zero");
  EXPECT_EQ(failing(op(Expr::Kind::call, "__abs", {constant(INT64_MIN)}, 6)),
            "`f`: host code at line 6: __abs(-9223372036854775808) overflows 64 bits");
  EXPECT_EQ(failing(op(Expr::Kind::call, "cdiv", {constant(-7), constant(2)}, 7)), "no error");
}

TEST(RunHost, ALoopPastTwoToTheThirtyFirstIsRefusedBeforeItsFirstLaunch) {
  Program p;
  p.function = "g";
  p.slots = {"i"};
  p.slot_is_float = {false};
  Stmt loop;
  loop.kind = Stmt::Kind::loop;
  loop.slot = 0;
  loop.value = constant((std::int64_t{1} << 31) + 1);
  loop.line = 9;
  loop.body.push_back(launch(0));
  p.body.push_back(loop);
  Recorded r;
  try {
    run(p, recording(r));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "`g`: host code at line 9: a host loop of 2147483649 iterations (at most 2^31)");
  }
  EXPECT_TRUE(r.events.empty());
}

TEST(RunHost, ValuesPrintAsTheDevicesPrintfDoes) {
  EXPECT_EQ(value_text(Value{false, -42, 0}), "-42");
  EXPECT_EQ(value_text(Value{true, 0, 0.25}), "0.250000");
  EXPECT_EQ(value_text(Value{true, 0, -3}), "-3.000000");
}

TEST(RunHost, ConversionsRoundWrapAndSaturateAsTheDevice) {
  // Floats round to the type's precision.
  EXPECT_EQ(converted(Value{true, 0, 1.0 / 3}, DType::f32).f, static_cast<double>(1.0f / 3));
  EXPECT_EQ(converted(Value{true, 0, 257.0}, DType::bf16).f, 256.0);
  EXPECT_EQ(converted(Value{false, 2049, 0}, DType::f16).f, 2048.0);
  // Integers wrap to the width; a u64 operand converts as unsigned.
  EXPECT_EQ(converted(Value{false, 300, 0}, DType::u8).i, 44);
  EXPECT_EQ(converted(Value{false, 40000, 0}, DType::s16).i, 40000 - 65536);
  EXPECT_EQ(converted(Value{false, -1, 0}, DType::u32).i, 4294967295);
  EXPECT_EQ(converted(Value{false, -1, 0}, DType::f64, true).f, 18446744073709551615.0);
  // Floats truncate toward zero and saturate at the type's range.
  EXPECT_EQ(converted(Value{true, 0, -2.75}, DType::s32).i, -2);
  EXPECT_EQ(converted(Value{true, 0, 1e10}, DType::s32).i, 2147483647);
  EXPECT_EQ(converted(Value{true, 0, -5.0}, DType::u8).i, 0);
  EXPECT_FALSE(converted(Value{true, 0, 3.0}, DType::s64).is_float);
}

TEST(RunHost, AssignmentsConvertToTheSlotsDeclaredType) {
  Program p;
  p.slots = {"c"};
  p.slot_is_float = {false};
  p.slot_dtype = {DType::u8};
  Stmt set;
  set.kind = Stmt::Kind::assign;
  set.slot = 0;
  set.value = constant(455);
  Stmt done;
  done.kind = Stmt::Kind::finish;
  done.value = slot(0);
  p.body = {set, done};
  p.result = DType::s32;
  Recorded r;
  const std::optional<Value> v = run(p, recording(r));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->i, 455 - 256);
}

}  // namespace
}  // namespace croq::host
