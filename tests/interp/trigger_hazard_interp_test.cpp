// The hazard class "threads of a level disagree on a trigger": in
// samples/matmul_tma.cpp's warp-specialized GEMM, a consumer warp's trigger
// of its `empty` event is an arrival per warp (lane 0 arrives once the whole
// warp is there). A test pass lets only half of each warp's lanes reach the
// first such trigger, as a wrong lowering of a divergent `if` would: the
// interpreter reports the disagreement at the trigger's Croqtile line
// (found when no thread can go on: the other lanes wait for an event).
#include <gtest/gtest.h>

#include <string>

#include "common/files.hpp"
#include "interp/broken_ir.hpp"
#include "ir/builder.hpp"

namespace {

namespace ir = croq::ir;
namespace passes = croq::passes;

TEST(InterpretHazards, LanesOfAWarpDisagreeOnATrigger) {
  const std::string source = croq::test::sample_source("matmul_tma");
  auto lhs = croq::make_spandata<croq::f16>(128, 384);
  auto rhs = croq::make_spandata<croq::f16>(128, 384);
  auto out = croq::make_spandata<croq::f16>(128, 128);
  std::string text;
  const int line = croq::test::interpret_error_line(
      [&] {
        croq::test::run_broken(
            source.c_str(), {lhs.view(), rhs.view(), out.view()}, [](ir::Kernel& k, const passes::PassContext&) {
              bool done = false;
              croq::test::for_each_child(*k.body, [&](ir::StmtList& list) {
                for (auto& s : list) {
                  const auto* arrive = std::get_if<ir::Arrive>(&s->node);
                  if (done || arrive == nullptr || !arrive->per_warp) continue;
                  ir::If half_the_lanes;
                  const ir::Type u32{ir::Type::Kind::u32, croq::DType::u32};
                  half_the_lanes.condition =
                      ir::less(ir::binary("%", ir::special("threadIdx.x"), ir::int_const(32, u32)), ir::int_const(16, u32));
                  ir::StmtList body;  // a branch body is a statement list
                  body.push_back(std::move(s));
                  half_the_lanes.then_branch = ir::make_stmt(ir::Seq{std::move(body), false});
                  s = ir::make_stmt(std::move(half_the_lanes));
                  done = true;
                }
              });
            });
      },
      text);
  // The producer's `trigger full[stage];` (line 21 of the sample's text):
  // lanes 0-15 wait there for the others, which went on to the next `wait`.
  EXPECT_EQ(line, 21) << text;
  EXPECT_NE(text.find("threads of one warp 0 disagree: 16 threads wait at line 21, but thread 16 waits for event "
                      "`empty[0]` (phase parity 1) at line 18 (every thread of it must reach the same barrier, "
                      "trigger or multiply)"),
            std::string::npos)
      << text;
}

}  // namespace
