// What sema records for later stages (resolved names, symbol kinds,
// parallel mappings), how it recovers after an error, and how its
// diagnostics render (rule id, derivation notes, JSON).
#include <nlohmann/json.hpp>

#include "sema/rules.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using namespace frontend::ast;

const char* kMatmulDma = R"croq(
__co__ s32 [128, 256] matmul(s32 [128, 256] lhs, s32 [256, 256] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {px, py} by [8, 16] : block {
    foreach {tile_k} in [16] {
      lhs_load = dma.copy lhs.chunkat(px, tile_k) => shared;
      rhs_load = dma.copy.async rhs.chunkat(tile_k, py) => shared;
      wait rhs_load;
      parallel {qx, qy} by [16, 16] : thread {
        foreach k in [256 / #tile_k]
          output.at(px#qx, py#qy) += lhs_load.data.at(qx, k) * rhs_load.data.at(k, qy);
      }
    }
  }
  return output;
}
)croq";

using Checked = CheckedSource;

// The symbol the first Name expression spelled `name` resolves to.
const Symbol* resolved(const CheckedFunction& f, const std::string& name) {
  for (const auto& [expr, symbol] : f.resolved)
    if (const auto* n = std::get_if<Name>(&expr->node); n && n->name == name) return symbol;
  return nullptr;
}

TEST(CheckedProgram, ResolvesEveryNameToItsKind) {
  Checked c = check_source(kMatmulDma);
  const CheckedFunction* f = c.checked.find("matmul");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->returned, "output");

  const Symbol* lhs = resolved(*f, "lhs");
  ASSERT_NE(lhs, nullptr);
  EXPECT_EQ(lhs->origin, Origin::parameter);
  EXPECT_EQ(lhs->type.kind, Kind::tensor);
  EXPECT_EQ(lhs->type.rank, 2);
  EXPECT_EQ(lhs->type.buffer->dtype, DType::s32);
  EXPECT_EQ(lhs->type.buffer->space, Space::global);
  EXPECT_EQ(lhs->type.buffer->parameter, 0);

  const Symbol* output = resolved(*f, "output");
  ASSERT_NE(output, nullptr);
  EXPECT_TRUE(output->type.buffer->returned);

  const Symbol* tile_k = resolved(*f, "tile_k");
  ASSERT_NE(tile_k, nullptr);
  EXPECT_EQ(tile_k->type.kind, Kind::index);
  EXPECT_EQ(tile_k->type.count, 16);

  const Symbol* load = resolved(*f, "lhs_load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->type.kind, Kind::future);
  EXPECT_FALSE(load->type.async);
  EXPECT_EQ(load->type.buffer->space, Space::shared);
  EXPECT_TRUE(resolved(*f, "rhs_load")->type.async);

  // Every name in the body resolves.
  std::size_t names = 0;
  for (const auto& [expr, symbol] : f->resolved) {
    ASSERT_NE(symbol, nullptr);
    ++names;
  }
  EXPECT_GE(names, 20u);
}

TEST(CheckedProgram, RecordsParallelMappings) {
  Checked c = check_source(kMatmulDma);
  const CheckedFunction* f = c.checked.find("matmul");
  std::vector<Mapping> mappings;
  for (const auto& [level, mapping] : f->mappings) mappings.push_back(mapping);
  ASSERT_EQ(mappings.size(), 2u);
  EXPECT_EQ(std::count(mappings.begin(), mappings.end(), Mapping::grid), 1);
  EXPECT_EQ(std::count(mappings.begin(), mappings.end(), Mapping::threads), 1);
}

// fp8 data moves: copies and element-to-element assignments of one type.
TEST(CheckedProgram, Fp8ElementsMove) {
  auto e = sema_error(
      "__co__ void f(f8_e4m3 [64, 64] a, f8_e4m3 [64, 64] b) {\n"
      "  parallel p by 2 : block {\n"
      "    t = dma.copy a.chunkat(p, _) => shared;\n"
      "    parallel i by 32 : thread {\n"
      "      foreach j in [64] {\n"
      "        f8_e4m3 v = t.data.at(i, j);\n"
      "        b.at(p # i, j) = v;\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
  EXPECT_FALSE(e.has_value()) << (e ? e->what() : "");
}

// tf32 and the scale types are tensor types sema accepts: parameters,
// shared and local tiles, an output, element reads into f32 and arithmetic
// stored back.
TEST(CheckedProgram, Tf32AndScaleTypesAreChecked) {
  for (const char* type : {"tf32", "f8_ue8m0", "f8_ue4m3"}) {
    const std::string t = type;
    auto e = sema_error("__co__ " + t + " [64] f(" + t + " [64] a, f32 [64] b) {\n"
                        "  " + t + " [a.span] out;\n"
                        "  parallel p by 1 : block {\n"
                        "    s = dma.copy a => shared;\n"
                        "    local " + t + " [4] l;\n"
                        "    parallel i by 64 : thread {\n"
                        "      b.at(i) = s.data.at(i) * 2.0f;\n"
                        "      out.at(i) = a.at(i) + s.data.at(i);\n"
                        "    }\n"
                        "  }\n"
                        "  return out;\n"
                        "}\n");
    EXPECT_FALSE(e.has_value()) << t << ": " << (e ? e->what() : "");
  }
}

// Every sub-byte element type is a tensor type sema accepts: parameters,
// shared tiles, copies, element reads into f32 and integer arithmetic.
TEST(CheckedProgram, SubByteElementTypesAreChecked) {
  for (const char* type : {"f6_e2m3", "f6_e3m2", "f4_e2m1", "u6", "s6", "u4", "s4", "u2", "s2", "u1", "bin1"}) {
    const std::string t = type;
    auto e = sema_error("__co__ f32 [64] f(" + t + " [64] a, " + t + " [64] b) {\n"
                        "  f32 [a.span] out;\n"
                        "  parallel p by 1 : block {\n"
                        "    s = dma.copy a => shared;\n"
                        "    parallel i by 64 : thread {\n"
                        "      out.at(i) = s.data.at(i) + b.at(i);\n"
                        "      b.at(i) = a.at(i);\n"
                        "    }\n"
                        "  }\n"
                        "  return out;\n"
                        "}\n");
    EXPECT_FALSE(e.has_value()) << t << ": " << (e ? e->what() : "");
  }
}

TEST(CheckedProgram, EveryFunctionOrTheSelectedOnes) {
  const std::string two = "__co__ void a(s32 [8] x) { x.at(q) = 1; }\n__co__ void b(s32 [8] x) { x.at(r) = 1; }\n";
  auto all = sema_error(two);
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->diagnostics().size(), 2u);
  EXPECT_EQ(all->diagnostics()[0].message, "unknown name `q`");
  EXPECT_EQ(all->diagnostics()[1].message, "unknown name `r`");
  auto program = frontend::parse_program(two, {});
  try {
    check(*program, {program->find_function("b")});
    FAIL() << "expected an error in b";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message, "unknown name `r`");
  }
}

// After an error the checker goes on with the next statement, and what the
// failed statement would have defined raises nothing more.
TEST(Recovery, OneErrorPerBadStatementAndNoCascades) {
  auto e = sema_error(blk("    t = dma.copy lhs.chunkat(bm) => shared;\n"      // line 3: chunkat-arity
                          "    wait t;\n"                                       // t: poisoned, silent
                          "    u = dma.copy t.data => shared;\n"                // silent
                          "    shared event e[40];\n"                           // line 6: event-count
                          "    trigger e[0];\n"                                 // e: poisoned, silent
                          "    parallel q by 0 : group-4 {\n"                   // line 8: parallel-count
                          "      a.at(q, zz) = 1;\n"                            // line 9: unknown-name, body still checked
                          "    }\n"));
  ASSERT_TRUE(e.has_value());
  std::vector<std::string> rules;
  std::vector<int> lines;
  for (const Diagnostic& d : e->diagnostics()) {
    rules.push_back(d.rule);
    lines.push_back(d.line);
  }
  EXPECT_EQ(rules, (std::vector<std::string>{"chunkat-arity", "event-count", "parallel-count", "unknown-name"})) << e->what();
  EXPECT_EQ(lines, (std::vector<int>{3, 6, 8, 9}));
}

// Valid Croqtile that libcroqjit cannot run yet (a limitation rule) is an
// error for croq::compile and a warning for `croq check`.
TEST(Limitations, AreErrorsForCompileAndWarningsForCheck) {
  const std::string source = fn("  parallel p by 1 { shared event e; g = e; }\n"  // line 2: unsupported-binding
                                "  parallel p by 4 { call helper(p); }\n");               // line 3: device-function-unknown
  auto as_errors = sema_error(source);
  ASSERT_TRUE(as_errors.has_value());
  ASSERT_EQ(as_errors->diagnostics().size(), 2u) << as_errors->what();
  EXPECT_EQ(as_errors->diagnostics()[0].severity, Severity::error);
  EXPECT_EQ(as_errors->diagnostics()[0].rule, "unsupported-binding");

  auto program = frontend::parse_program(source, {});
  Options check_only;
  check_only.limitations_are_errors = false;
  CheckedProgram checked = check(*program, {}, check_only);
  ASSERT_EQ(checked.limitations.size(), 2u);
  EXPECT_EQ(checked.limitations[0].severity, Severity::warning);
  EXPECT_EQ(checked.limitations[0].rule, "unsupported-binding");
  EXPECT_EQ(checked.limitations[0].line, 2);
  EXPECT_EQ(checked.limitations[1].rule, "device-function-unknown");
  EXPECT_EQ(checked.limitations[1].line, 3);
  EXPECT_EQ(checked.limitations[1].notes.back(),
            "valid Croqtile; croq::compile rejects it until libcroqjit can run it");
}

// The limitations `croq check` reports for `source`, "rule @line" each.
std::vector<std::string> limitation_rules(const std::string& source) {
  auto program = frontend::parse_program(source, {});
  Options check_only;
  check_only.limitations_are_errors = false;
  CheckedProgram checked = check(*program, {}, check_only);
  std::vector<std::string> rules;
  for (const Diagnostic& d : checked.limitations) rules.push_back(d.rule + " @" + std::to_string(d.line));
  return rules;
}

// Valid Croqtile that libcroqjit cannot run yet, each a limitation with no
// error: events without a storage, inthreads.async on a block index (the
// thread level `q` is the one it selects among), arrays of accumulators (an
// event in a thread level is the block's).
TEST(Limitations, EventPlacementsInthreadsLevelsAndAccumulatorArrays) {
  const std::string source =
      "__co__ void f() {\n"
      "  parallel p by 3, q by 4 {\n"
      "    event g[3];\n"
      "    shared event e[4];\n"
      "    inthreads.async (p < 1) { }\n"
      "  }\n"
      "}\n" +
      wg("      frag md[2][2] {0.0f};\n      mma.row.row md[0][1], ta.data, tb.data;\n");
  EXPECT_EQ(limitation_rules(source), (std::vector<std::string>{"event-not-shared @3", "inthreads-condition @5",
                                                                "unsupported-fragment @14"}));
  auto as_errors = sema_error(source);
  ASSERT_TRUE(as_errors.has_value());
  EXPECT_EQ(as_errors->diagnostics().size(), 3u) << as_errors->what();
}

// In an array of arrays of local events each `[i]` selects along the next
// dimension, so a row (`g[0]`), one event (`g[1][0]`) and the whole array
// are triggered and waited for without an error or a limitation.
TEST(ArraysOfArrays, EventsSelectOneDimensionAtATime) {
  const std::string source =
      "__co__ void f() {\n"
      "  parallel by 1 {\n"
      "    local event one, g[2][2];\n"
      "    trigger one, g[0], g[1][0];\n"
      "    wait one, g;\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(limitation_rules(source), std::vector<std::string>{});
  auto as_errors = sema_error(source);
  EXPECT_FALSE(as_errors.has_value()) << as_errors->what();
}

// A multiply whose operand is a limitation (a warpgroup's mma.load of a
// global s32 tile) still writes its accumulator: the store after it is not
// reported as a store of an unwritten accumulator.
TEST(Limitations, AMultiplyOfAnUnsupportedOperandStillWritesItsAccumulator) {
  const std::string source = wg("      ma = mma.load a;\n"
                                "      mma.row.row mc, ma, tb.data;\n"
                                "      mma.store mc, out.subspan(64, 128).at(bm, bn);\n");
  EXPECT_EQ(limitation_rules(source), (std::vector<std::string>{"unsupported-mma-form @7"}));
}

// A shape with a dim computed at run time is that limitation alone: the
// name stays a shape of its rank, so `b(1)` and `b` as a shape report
// nothing more (no unsupported-call).
TEST(Limitations, AShapeOfARunTimeDimStaysAShape) {
  const std::string source = "__co__ void f(f32 [8] a, int e) {\n"
                             "  b : [e + 1, 7];\n"
                             "  c : [b(1), 2];\n"
                             "  parallel p by 1 : block\n"
                             "    a.at(0) = b(0) + c(0);\n"
                             "}\n";
  EXPECT_EQ(limitation_rules(source), (std::vector<std::string>{"unsupported-runtime-value @2"}));
}

// A real error still fails the check, and carries the limitations as warnings.
TEST(Limitations, ComeWithTheErrorsOfTheSameCheck) {
  auto program = frontend::parse_program(fn("  parallel p by 1 { shared event e; g = e; }\n  u = zz;\n"), {});
  Options check_only;
  check_only.limitations_are_errors = false;
  try {
    check(*program, {}, check_only);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].severity, Severity::warning);
    EXPECT_EQ(e.diagnostics()[1].severity, Severity::error);
    EXPECT_EQ(e.diagnostics()[1].message, "unknown name `zz`");
  }
}

// A limitation whose meaning is clear does not stop the check: the body of
// a `with` loop is checked, and a tuple of indices counts as its indices.
TEST(Limitations, TuplesOfIndicesAreCheckedAsTheirIndices) {
  auto program = frontend::parse_program(
      fn("  parallel p by 1 {\n"
         "    with idx = {x, y} in [4, 2] {\n"
         "      t = dma.copy a.chunkat(idx) => local;\n"         // 2 indices for rank 2: fine
         "      u = dma.copy a.chunkat(idx, p) => local;\n"      // line 5: 3 for rank 2
         "    }\n"
         "    foreach w in [4, 2] {\n"
         "      v = dma.copy a.chunkat(w) => local;\n"           // w: 2 indices
         "      q = dma.copy lhs.chunkat(w, p) => local;\n"      // line 9: 3 for rank 2
         "    }\n"
         "  }\n"),
      {});
  Options check_only;
  check_only.limitations_are_errors = false;
  try {
    check(*program, {}, check_only);
    FAIL() << "expected errors";
  } catch (const CompileError& e) {
    std::vector<std::pair<int, std::string>> errors;
    for (const Diagnostic& d : e.diagnostics())
      if (d.severity == Severity::error) errors.emplace_back(d.line, d.rule);
    EXPECT_EQ(errors, (std::vector<std::pair<int, std::string>>{{5, "chunkat-arity"}, {9, "chunkat-arity"}})) << e.what();
  }
}

// `f = mma.row.row.async ...` names the multiply's completion: waiting on
// it is fine, storing the accumulator after it too, with no limitation.
TEST(Limitations, AsyncMmaFuturesAreWaitedOn) {
  auto program = frontend::parse_program(wg("      f = mma.row.row.async mc, ta.data, tb.data;\n"
                                            "      wait f;\n"
                                            "      mma.store mc, out.subspan(64, 128).at(bm, bn);\n"),
                                         {});
  Options check_only;
  check_only.limitations_are_errors = false;
  CheckedProgram checked = check(*program, {}, check_only);
  EXPECT_TRUE(checked.limitations.empty()) << checked.limitations[0].message;
}

TEST(RuleTable, LimitationsAreTheUnsupportedRules) {
  for (const RuleInfo& r : all_rules()) {
    const bool unsupported = std::string(r.id).rfind("unsupported-", 0) == 0;
    EXPECT_TRUE(!unsupported || r.limitation) << r.id << " should be a CROQ_SEMA_LIMIT";
  }
}

// A block whose only thread level is one warpgroup (`parallel p by 1 :
// group-4`, reached through loops and ifs) runs its block-scope statements
// on that warpgroup: an accumulator may be filled and stored there.
TEST(Limitations, BlockOfOneWarpgroupHoldsTheAccumulator) {
  const std::string source = blk(
      "    shared f16 [64, 64] ta;\n    shared f16 [128, 64] tb;\n    shared f32 [64, 128] tc;\n"
      "    mc = mma.fill.f32 0.0f;\n"
      "    foreach {k} in [4] {\n"
      "      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, k) => ta;\n"
      "      tma.copy.swiz<128> rhs.subspan(128, 64).at(bn, k) => tb;\n"
      "      if (k < 4) {\n"
      "        parallel p by 1 : group-4 {\n"
      "          mma.row.row mc, ta, tb;\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "    mma.store mc, tc;\n");
  for (const bool hopper : {false, true}) {
    Options options;
    if (hopper) options.target = target::parse_target("sm_90a");
    auto e = sema_error(source, options);
    EXPECT_FALSE(e.has_value()) << (e ? e->what() : "");
  }
}

TEST(Recovery, StopsAfterTheErrorLimit) {
  std::string body;
  for (int i = 0; i < 60; ++i) body += "    a.at(bm, q" + std::to_string(i) + ") = 1;\n";
  Options options;
  options.max_errors = 50;
  auto e = sema_error(blk(body), options);
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->diagnostics().size(), 51u);
  EXPECT_EQ(e->diagnostics().back().severity, Severity::note);
  EXPECT_EQ(e->diagnostics().back().message, "stopped after 50 errors; fix these and check again");
  EXPECT_EQ(e->diagnostics().back().line, 0);
}

TEST(Diagnostics, RenderRuleNotesAndHint) {
  auto e = sema_error(blk("    t = dma.copy lhs.chunkat(bm) => shared;\n"), {}, "k.co");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(std::string(e->what()),
            "k.co:3:22: error: `.chunkat` on a rank-2 tensor takes 2 arguments, got 1 [chunkat-arity]\n"
            "        t = dma.copy lhs.chunkat(bm) => shared;\n"
            "                         ^~~~~~~\n"
            "  note: `lhs` is parameter 1: f16 [M, K], a global tensor of rank 2\n");
  auto json = nlohmann::json::parse(e->to_json());
  const auto& d = json["diagnostics"][0];
  EXPECT_EQ(d["rule"], "chunkat-arity");
  EXPECT_EQ(d["message"], "`.chunkat` on a rank-2 tensor takes 2 arguments, got 1");
  ASSERT_EQ(d["notes"].size(), 1u);
  EXPECT_EQ(d["notes"][0], "`lhs` is parameter 1: f16 [M, K], a global tensor of rank 2");
  EXPECT_FALSE(d.contains("hint"));
}

TEST(Diagnostics, NotesDescribeWhereAValueComesFrom) {
  auto notes = [](const std::string& source) {
    auto e = sema_error(source);
    return e && !e->diagnostics().empty() ? e->diagnostics()[0].notes : std::vector<std::string>{};
  };
  EXPECT_EQ(notes(blk("    wait bm;\n")),
            (std::vector<std::string>{"`bm` is an index of the `: block` level at 2:13"}));
  EXPECT_EQ(notes(blk("    t = dma.copy.async lhs.subspan(64, 64).at(bm, 0) => shared;\n    trigger t;\n")),
            (std::vector<std::string>{"`t` is the future of an asynchronous dma copy into a shared f16 tensor of rank 2 "
                                      "(the dma.copy at 3:5)"}));
  EXPECT_EQ(notes(blk("    shared event e[4];\n    e.chunkat(bm);\n")),
            (std::vector<std::string>{"`e` is declared at 3:18: an array of 4 events"}));
  EXPECT_EQ(notes(fn("  parallel i by 8 : block\n    parallel j by n : thread\n      a.at(j, 0) = 1;\n")),
            (std::vector<std::string>{"`n` is parameter 6: int, a value known only on the device"}));
}

}  // namespace
}  // namespace croq::sema::test
