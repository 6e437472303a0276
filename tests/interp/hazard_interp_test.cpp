// Interpret mode's hazard checks, one test per class, each on a real kernel
// whose IR a test pass has broken the way a wrong pass or lowering would
// (the compiler itself never emits these): each is an InterpretError at the
// Croqtile line of the offending statement.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "croq/croq.hpp"
#include "interp/broken_ir.hpp"
#include "ir/builder.hpp"

namespace {

namespace ir = croq::ir;
namespace passes = croq::passes;
using croq::test::drop_all;
using croq::test::for_each_child;
using croq::test::interpret_error_line;
using croq::test::run_broken;

const char* kPipelined = R"croq(
#define WARP_M 64
#define WARP_N 128
#define TILE_K 64
#define WARP_K 16
#define STAGES 2

__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, WARP_M), cdiv(N, WARP_N)] : block {
    shared event full[STAGES], empty[STAGES];
    shared f16 [WARP_M, TILE_K] lhs_load_s[STAGES];
    shared f16 [WARP_N, TILE_K] rhs_load_s[STAGES];
    shared f16 [WARP_M, WARP_N] output_s;
    parallel p1 by 2 : group-4 {
      inthreads.async (p1 == 0) {
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          stage = iv_k % STAGES;
          wait empty[stage];
          tma.copy.swiz<3> lhs.subspan(WARP_M, TILE_K).at(block_m, iv_k) => lhs_load_s[stage];
          tma.copy.swiz<3> rhs.subspan(WARP_N, TILE_K).at(block_n, iv_k) => rhs_load_s[stage];
          trigger full[stage];
        }
      }
      inthreads.async (p1 == 1) {
        mc = mma.fill.f32 0.0f;
        foreach {s} in [STAGES] { trigger empty[s]; }
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          stage = iv_k % STAGES;
          wait full[stage];
          foreach {iv_warp} in [cdiv(TILE_K, WARP_K)] {
            ma = mma.load.swiz<3> lhs_load_s[stage].chunkat(_, iv_warp);
            mb = mma.load.swiz<3> rhs_load_s[stage].chunkat(_, iv_warp);
            mma.row.row mc, ma, mb;
          }
          mma.commit;
          trigger empty[stage];
        }
        mma.store mc, output_s;
        dma.copy output_s => output.subspan(WARP_M, WARP_N).at(block_m, block_n);
      }
    }
  }
}
)croq";

struct Operands {
  croq::spandata<croq::f16> lhs = croq::make_spandata<croq::f16>(64, 256);
  croq::spandata<croq::f16> rhs = croq::make_spandata<croq::f16>(128, 256);
  croq::spandata<croq::f16> out = croq::make_spandata<croq::f16>(64, 128);
  std::vector<croq::Arg> args() { return {lhs.view(), rhs.view(), out.view()}; }
};


TEST(InterpretHazards, TheUnbrokenPipelineRuns) {
  Operands o;
  o.lhs.fill_random(-1.0f, 1.0f);
  o.rhs.fill_random(-1.0f, 1.0f);
  std::string text;
  EXPECT_EQ(interpret_error_line([&] { run_broken(kPipelined, o.args(), [](ir::Kernel&, const passes::PassContext&) {}); },
                                 text),
            -1)
      << text;
}

TEST(InterpretHazards, ReadBeforeTheTmaEventWasWaited) {
  Operands o;
  std::string text;
  // Without the consumer's `wait full[stage]`, its multiply reads the tile first.
  const int line = interpret_error_line(
      [&] {
        run_broken(kPipelined, o.args(), [](ir::Kernel& k, const passes::PassContext&) {
          for_each_child(*k.body, [&](ir::StmtList& list) {
            std::erase_if(list, [&](const ir::StmtPtr& s) {
              const auto* w = std::get_if<ir::WaitEvent>(&s->node);
              return w && k.events[static_cast<std::size_t>(w->event)].source_name == "full";
            });
          });
        });
      },
      text);
  EXPECT_EQ(line, 33) << text;
  EXPECT_NE(text.find("read of `lhs_load_s` before its tma.copy (line 19) completed"), std::string::npos) << text;
  EXPECT_NE(text.find("has not waited on event `full["), std::string::npos) << text;
}

TEST(InterpretHazards, StageOverwrittenWhileAMultiplyMayReadIt) {
  Operands o;
  std::string text;
  // Without its mma.wait, the consumer frees a stage whose WGMMA is in flight.
  const int line = interpret_error_line(
      [&] { run_broken(kPipelined, o.args(), [](ir::Kernel& k, const passes::PassContext&) { drop_all<ir::MmaWait>(k); }); },
      text);
  EXPECT_EQ(line, 19) << text;
  EXPECT_NE(text.find("is overwritten while the multiply at line 33"), std::string::npos) << text;
}

TEST(InterpretHazards, ThreadsDisagreeOnABarrier) {
  std::string text;
  auto lhs = croq::make_spandata<croq::s32>(32, 64);
  auto rhs = croq::make_spandata<croq::s32>(64, 64);
  // The block barrier before each shared tile's reads, taken by half the block only.
  const int line = interpret_error_line(
      [&] {
        run_broken(R"croq(
__co__ s32 [32, 64] matmul(s32 [32, 64] lhs, s32 [64, 64] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {px, py} by [2, 4] : block {
    foreach {tile_k} in [4] {
      lhs_load = dma.copy lhs.chunkat(px, tile_k) => shared;
      rhs_load = dma.copy rhs.chunkat(tile_k, py) => shared;
      parallel {qx, qy} by [16, 16] : thread {
        foreach k in [64 / #tile_k]
          output.at(px#qx, py#qy) += lhs_load.data.at(qx, k) * rhs_load.data.at(k, qy);
      }
    }
  }
  return output;
}
)croq",
                   {lhs.view(), rhs.view()}, [](ir::Kernel& k, const passes::PassContext&) {
                     bool done = false;
                     for_each_child(*k.body, [&](ir::StmtList& list) {
                       for (auto& s : list)
                         if (!done && std::holds_alternative<ir::Barrier>(s->node)) {
                           ir::If guarded;
                           guarded.condition =
                               ir::less(ir::special("threadIdx.x"), ir::int_const(128, ir::Type{ir::Type::Kind::u32, croq::DType::u32}));
                           ir::StmtList body;  // a branch body is a statement list
                           body.push_back(std::move(s));
                           guarded.then_branch = ir::make_stmt(ir::Seq{std::move(body), false});
                           s = ir::make_stmt(std::move(guarded));
                           done = true;
                         }
                     });
                   });
      },
      text);
  EXPECT_GT(line, 0) << text;
  EXPECT_NE(text.find("threads of one block barrier disagree"), std::string::npos) << text;
}

}  // namespace
