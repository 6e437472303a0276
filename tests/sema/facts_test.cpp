// The facts sema records for lowering (sema.hpp: mappings, decoded
// `.swiz<N>` spans and `dma.pad` parts, each declared buffer and event, each
// copy's protocol, the rings of swapped futures, the target its arch rules
// used, the thread levels directly in blocks and the regions selecting
// threads), and
// the shape-dependent rules both stages apply (bound_rules.hpp): one test
// and one message each, whichever stage meets the value.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sema/bound_rules.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

using namespace frontend::ast;

using Checked = CheckedSource;

// Every statement of `s` (itself included), in source order.
void statements(const Stmt& s, std::vector<const Stmt*>& out) {
  out.push_back(&s);
  std::visit([&](const auto& n) {
    using T = std::decay_t<decltype(n)>;
    if constexpr (std::is_same_v<T, Block>) {
      for (const auto& c : n.statements) statements(*c, out);
    } else if constexpr (std::is_same_v<T, Parallel> || std::is_same_v<T, Loop> || std::is_same_v<T, InThreads>) {
      if (n.body) statements(*n.body, out);
    }
  }, s.node);
}

std::vector<const Stmt*> statements_of(const Checked& c) {
  std::vector<const Stmt*> out;
  statements(*c.program->functions.at(0).body, out);
  return out;
}

const char* kPad = R"croq(
__co__ f32 [M, N] box(f32 [M, N] input) {
  f32 [input.span] output;
  parallel {pm, pn} by [M / 16, N / 32] : block {
    padded = dma.pad<{1, 2}, {3, 4}, {0, 0}, 0.5f> input.chunkat(pm, pn) => shared;
    parallel {i, j} by [16, 32] : thread
      output.at(pm # i, pn # j) = padded.data.at(i, j);
  }
  return output;
}
)croq";

TEST(SemaFacts, MapsEveryParallelLevel) {
  Checked c = check_source(kPad);
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<Mapping> mappings;
  for (const Stmt* s : statements_of(c))
    if (const auto* p = std::get_if<Parallel>(&s->node))
      for (const ParallelLevel& lv : p->levels) mappings.push_back(f.mapping(lv));
  EXPECT_EQ(mappings, (std::vector<Mapping>{Mapping::grid, Mapping::threads}));
}

const char* kRegions = R"croq(
__co__ void regions(s32 [2, 256] a) {
  parallel b by 2 : block {
    parallel t by 128 : thread
      inthreads.async (t < 64) { a.at(b, t) = 1; }
    parallel g by 2 : group-4, u by 128 : thread {
      inthreads.async (g == 0 && u < 64) { a.at(b, u) = 2; }
      inthreads.async (g == 1) { a.at(b, 128 + u) = 3; }
    }
  }
}
)croq";

// The thread level directly in the block (inthreads.async selects warps of
// it), and the regions whose condition tests the index of the thread level
// spanning each warpgroup (they select threads).
TEST(SemaFacts, RecordsBlockThreadLevelsAndRegionsSelectingThreads) {
  Checked c = check_source(kRegions);
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<std::string> block_levels;
  std::vector<bool> by_threads;
  for (const Stmt* s : statements_of(c)) {
    if (const auto* p = std::get_if<Parallel>(&s->node))
      for (const ParallelLevel& lv : p->levels)
        if (f.block_thread_levels.count(&lv)) block_levels.push_back(lv.indices.at(0).name);
    if (const auto* t = std::get_if<InThreads>(&s->node)) by_threads.push_back(f.thread_selected_regions.count(t) > 0);
  }
  EXPECT_EQ(block_levels, (std::vector<std::string>{"t"}));
  EXPECT_EQ(by_threads, (std::vector<bool>{false, true, false}));
}

TEST(SemaFacts, DecodesEachPaddingOnce) {
  Checked c = check_source(kPad);
  const CheckedFunction& f = *c.checked.functions.at(0);
  const Copy* pad = nullptr;
  for (const Stmt* s : statements_of(c))
    if (const auto* copy = std::get_if<Copy>(&s->node)) pad = copy;
  ASSERT_NE(pad, nullptr);
  const Padding& p = f.padding(*pad);
  const char* expected[3][2] = {{"1", "2"}, {"3", "4"}, {"0", "0"}};
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(p.parts[k].size(), 2u) << k;
    for (int d = 0; d < 2; ++d) EXPECT_EQ(frontend::source_text(*c.program, *p.parts[k][d]), expected[k][d]);
  }
  ASSERT_NE(p.value, nullptr);
  EXPECT_EQ(frontend::source_text(*c.program, *p.value), "0.5f");
}

TEST(SemaFacts, DecodesEachSwizzleSpan) {
  // 0..3 name the modes, 32/64/128 the byte spans.
  Checked c = check_source(wg("      ma = mma.load.swiz<3> ta.data;\n"
                              "      mb = mma.load.swiz<128> tb.data;\n"
                              "      mma.row.row mc, ma, mb;\n"));
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<int> spans;
  for (const Stmt* s : statements_of(c)) {
    const std::vector<Modifier>* mods = nullptr;
    if (const auto* copy = std::get_if<Copy>(&s->node)) mods = &copy->modifiers;
    if (const auto* mma = std::get_if<Mma>(&s->node)) mods = &mma->modifiers;
    if (!mods) continue;
    for (const Modifier& m : *mods)
      if (m.name == "swiz") spans.push_back(f.swizzle_span(m));
  }
  EXPECT_EQ(spans, (std::vector<int>{128, 128, 128, 128}));
}

TEST(SemaFacts, AFactSemaDidNotRecordIsAnInternalError) {
  Checked c = check_source(kPad);
  const CheckedFunction& f = *c.checked.functions.at(0);
  const Modifier stray{{7, 3, 4}, "swiz", true, {}};
  try {
    f.swizzle_span(stray);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "internal error: sema recorded no swizzle span for line 7, column 3; please report this with the source");
  }
}

TEST(SemaFacts, ABufferEventOrCopySemaDidNotRecordIsAnInternalError) {
  Checked c = check_source(kPad);
  const CheckedFunction& f = *c.checked.functions.at(0);
  Declarator stray;
  stray.location = {4, 5, 1};
  Copy copy;
  copy.op_location = {6, 2, 3};
  auto message = [](const auto& read) {
    try {
      read();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { f.buffer(stray); }),
            "internal error: sema recorded no buffer for line 4, column 5; please report this with the source");
  EXPECT_EQ(message([&] { f.event(stray); }),
            "internal error: sema recorded no event for line 4, column 5; please report this with the source");
  EXPECT_EQ(message([&] { f.protocol(copy); }),
            "internal error: sema recorded no copy protocol for line 6, column 2; please report this with the source");
}

const char* kResources = R"croq(
__co__ f32 [M, N] rings(f32 [M, N] a) {
  f32 [a.span] out;
  parallel p by M / 16 : block {
    shared f32 [16, N] stage[2], whole;
    local s32 [4] regs;
    shared event full[2] = ready;
    shared event one;
    cur = dma.copy.async a.subspan(16, 16).at(p, 0) => shared;
    nxt = dma.any;
    foreach k in [7] {
      nxt = dma.copy.async.zfill a.subspan(16, 16).at(p, k + 1) => shared;
      wait cur;
      parallel {i, j} by [16, 16] : thread
        out.at(p # i, k # j) = cur.data.at(i, j);
      swap cur, nxt;
    }
  }
  return out;
}
)croq";

// Every declarator of the declarations of `c`, in source order.
std::vector<const Declarator*> declarators_of(const Checked& c) {
  std::vector<const Declarator*> out;
  for (const Stmt* s : statements_of(c))
    if (const auto* d = std::get_if<Declaration>(&s->node))
      for (const Declarator& decl : d->declarators) out.push_back(&decl);
  return out;
}

std::vector<std::string> texts(const Checked& c, const std::vector<const Expr*>& exprs) {
  std::vector<std::string> out;
  for (const Expr* e : exprs) out.push_back(frontend::source_text(*c.program, *e));
  return out;
}

TEST(SemaFacts, RecordsEachDeclaredBuffer) {
  Checked c = check_source(kResources);
  const CheckedFunction& f = *c.checked.functions.at(0);
  const std::vector<const Declarator*> decls = declarators_of(c);
  ASSERT_EQ(decls.size(), 6u);
  using Dims = std::vector<std::optional<std::int64_t>>;

  const Buffer& out = f.buffer(*decls[0]);
  EXPECT_TRUE(out.returned);
  EXPECT_EQ(out.space, Space::global);
  EXPECT_EQ(out.dtype, DType::f32);
  EXPECT_EQ(texts(c, out.shape), std::vector<std::string>{"a.span"});
  EXPECT_EQ(out.dims, (Dims{std::nullopt, std::nullopt}));  // M and N: bound per call

  const Buffer& stage = f.buffer(*decls[1]);
  EXPECT_EQ(stage.space, Space::shared);
  EXPECT_TRUE(stage.is_array);
  EXPECT_EQ(stage.slots, 2);
  EXPECT_EQ(texts(c, stage.shape), (std::vector<std::string>{"16", "N"}));
  EXPECT_EQ(stage.dims, (Dims{16, std::nullopt}));

  const Buffer& whole = f.buffer(*decls[2]);  // the same shape, one buffer
  EXPECT_NE(&whole, &stage);
  EXPECT_FALSE(whole.is_array);
  EXPECT_EQ(texts(c, whole.shape), (std::vector<std::string>{"16", "N"}));

  const Buffer& regs = f.buffer(*decls[3]);
  EXPECT_EQ(regs.space, Space::local);
  EXPECT_EQ(regs.dtype, DType::s32);
  EXPECT_EQ(regs.dims, (Dims{4}));
  EXPECT_FALSE(regs.returned);
}

TEST(SemaFacts, RecordsEachEventArray) {
  Checked c = check_source(kResources);
  const CheckedFunction& f = *c.checked.functions.at(0);
  const std::vector<const Declarator*> decls = declarators_of(c);
  const EventArray& full = f.event(*decls[4]);
  EXPECT_EQ(full.name, "full");
  EXPECT_TRUE(full.ready);
  EXPECT_EQ(full.count, 2);
  ASSERT_NE(full.count_expr, nullptr);
  EXPECT_EQ(frontend::source_text(*c.program, *full.count_expr), "2");
  const EventArray& one = f.event(*decls[5]);
  EXPECT_FALSE(one.ready);
  EXPECT_EQ(one.count, 1);
  EXPECT_EQ(one.count_expr, nullptr);
}

TEST(SemaFacts, RecordsEachCopysProtocolAndTheRingsOfSwappedFutures) {
  Checked c = check_source(kResources);
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<const Copy*> copies;
  for (const Stmt* s : statements_of(c))
    if (const auto* copy = std::get_if<Copy>(&s->node)) copies.push_back(copy);
  ASSERT_EQ(copies.size(), 3u);
  const CopyProtocol& first = f.protocol(*copies[0]);
  EXPECT_TRUE(first.async);
  EXPECT_FALSE(first.zfill);
  EXPECT_FALSE(first.store);
  EXPECT_EQ(first.swizzle, nullptr);
  EXPECT_EQ(first.bound, nullptr);
  ASSERT_NE(first.future, nullptr);
  EXPECT_EQ(first.future->name, "cur");
  EXPECT_FALSE(f.copies.count(copies[1]));  // `nxt = dma.any`: a placeholder, no copy
  const CopyProtocol& refill = f.protocol(*copies[2]);
  EXPECT_TRUE(refill.zfill);
  EXPECT_EQ(refill.future->name, "nxt");
  ASSERT_EQ(f.future_rings.size(), 1u);
  EXPECT_EQ(f.future_rings[0].futures, (std::vector<std::string>{"cur", "nxt"}));
}

TEST(SemaFacts, RecordsTheDirectionAndSwizzleOfTmaCopies) {
  Checked c = check_source(wg("      tma.copy.swiz<128> ta.data => lhs.subspan(64, 64).at(bm, 0);\n"));
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<bool> stores;
  for (const Stmt* s : statements_of(c))
    if (const auto* copy = std::get_if<Copy>(&s->node)) {
      const CopyProtocol& p = f.protocol(*copy);
      stores.push_back(p.store);
      ASSERT_NE(p.swizzle, nullptr);
      EXPECT_EQ(f.swizzle_span(*p.swizzle), 128);
      EXPECT_FALSE(p.async);
    }
  EXPECT_EQ(stores, (std::vector<bool>{false, false, true}));
  EXPECT_TRUE(f.future_rings.empty());
}

// Every mma statement of `c`, in source order, with its protocol (null: none recorded).
std::vector<std::pair<const Mma*, const MmaProtocol*>> mma_protocols(const Checked& c) {
  const CheckedFunction& f = *c.checked.functions.at(0);
  std::vector<std::pair<const Mma*, const MmaProtocol*>> out;
  for (const Stmt* s : statements_of(c))
    if (const auto* m = std::get_if<Mma>(&s->node)) {
      auto it = f.mmas.find(m);
      out.emplace_back(m, it == f.mmas.end() ? nullptr : &it->second);
    }
  return out;
}

TEST(SemaFacts, RecordsEachMmaStatementsDecodedModifiers) {
  Checked c = check_source(wg("      acc = mma.fill.f16 0.0f;\n"
                              "      ma = mma.load.swiz<128> ta.data;\n"
                              "      fa = mma.load.frag tb.data;\n"
                              "      mma.row.row acc, ma, tb.data;\n"
                              "      shared f16 [64, 128] out;\n"
                              "      mma.store acc, out;\n"));
  const CheckedFunction& f = *c.checked.functions.at(0);
  const auto mmas = mma_protocols(c);
  ASSERT_EQ(mmas.size(), 6u);  // wg's own fill, then the five above
  for (const auto& [m, p] : mmas) ASSERT_NE(p, nullptr) << "mma op " << static_cast<int>(m->op);
  EXPECT_EQ(mmas[0].second->accumulator, DType::f32);
  EXPECT_EQ(mmas[1].second->accumulator, DType::f16);
  ASSERT_NE(mmas[2].second->swizzle, nullptr);
  EXPECT_EQ(f.swizzle_span(*mmas[2].second->swizzle), 128);
  EXPECT_FALSE(mmas[2].second->to_registers);
  EXPECT_TRUE(mmas[3].second->to_registers);
  EXPECT_EQ(mmas[3].second->swizzle, nullptr);
  EXPECT_FALSE(mmas[4].second->sparse);
  EXPECT_FALSE(mmas[5].second->transpose);
  EXPECT_EQ(&f.protocol(*mmas[1].first, {}), mmas[1].second);
}

TEST(SemaFacts, AnMmaWithALimitationOrAnErrorHasNoProtocol) {
  // `.s32` accumulators are a warp's; a warpgroup's is a limitation.
  Options keep_going;
  keep_going.keep_going = true;
  Checked c = check_source(wg("      acc = mma.fill.s32 0;\n      bad = mma.load.trans ta.data;\n"), keep_going);
  EXPECT_EQ(c.checked.functions.at(0)->rejected.size(), 2u);
  const auto mmas = mma_protocols(c);
  ASSERT_EQ(mmas.size(), 3u);
  EXPECT_NE(mmas[0].second, nullptr);
  EXPECT_EQ(mmas[1].second, nullptr);
  EXPECT_EQ(mmas[2].second, nullptr);
  try {
    c.checked.functions.at(0)->protocol(*mmas[1].first, {3, 7, 1});
    FAIL() << "expected the internal error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sema recorded no mma protocol for line 3"), std::string::npos) << e.what();
  }
}

TEST(SemaFacts, RecordsTheTargetItsArchRulesUsed) {
  EXPECT_FALSE(check_source(kPad).checked.target.has_value());
  Options options;
  options.target = target::parse_target("sm_80");
  Checked c = check_source(kPad, options);
  ASSERT_TRUE(c.checked.target.has_value());
  EXPECT_EQ(c.checked.target->arch, "sm_80");
}

// The shape-dependent rules: sema applies them to constants, lowering to
// bound values; either way the same verdict.
TEST(BoundRules, HoldOrGiveTheRuleAndItsMessage) {
  EXPECT_FALSE(event_count(1));
  EXPECT_FALSE(event_count(32));
  Verdict v = event_count(33);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, Rule::event_count);
  EXPECT_EQ(v->message, "an event array holds 1 to 32 events, got 33");

  EXPECT_FALSE(parallel_count(1));
  EXPECT_EQ(parallel_count(0)->message, "a parallel count must be positive, got 0");

  EXPECT_FALSE(cluster_size(support::CheckedInt{8}, "C"));
  EXPECT_EQ(cluster_size(support::CheckedInt{9}, "C")->message, "a cluster holds at most 8 blocks, got 9");
  EXPECT_EQ(cluster_size(support::CheckedInt{0, support::ArithmeticFault::overflow}, "[1 << 40, 1 << 40]")->message,
            "a cluster holds at most 8 blocks, got [1 << 40, 1 << 40]");
  EXPECT_EQ(cluster_size(support::CheckedInt{9}, "C")->hint, "8 is the portable cluster size");

  EXPECT_FALSE(block_threads(support::CheckedInt{1024}));
  EXPECT_EQ(block_threads(support::CheckedInt{1025})->message,
            "this parallel level needs 1025 threads in a block; a block has at most 1024");
  EXPECT_EQ(block_threads(support::CheckedInt{0, support::ArithmeticFault::overflow})->message,
            "this parallel level needs more than 2^63 threads in a block; a block has at most 1024");

  EXPECT_FALSE(pad_padding("low", 0));
  EXPECT_EQ(pad_padding("mid", -2)->message, "`mid` padding must not be negative, got -2");

  EXPECT_FALSE(array_index(3, 4));
  EXPECT_EQ(array_index(4, 4)->message, "index 4 is out of range for 4 elements");
  EXPECT_EQ(array_index(-1, 4)->rule, Rule::array_index_range);

  EXPECT_FALSE(element_index(7, 1, 8));
  EXPECT_FALSE(element_index(7, 1, -1));  // an extent not known: nothing to say
  EXPECT_EQ(element_index(-1, 0, 8)->message, "index -1 is out of range for dimension 0 (indices start at 0)");
  EXPECT_EQ(element_index(8, 1, 8)->message, "index 8 is out of range for dimension 1 of extent 8");

  EXPECT_FALSE(event_unselected("e", 1));
  EXPECT_EQ(event_unselected("e", 4)->message, "`e` is an array of 4 events; say which one, e.g. `e[i]`");

  EXPECT_EQ(inthreads_selection("p", 4, std::nullopt)->message,
            "the inthreads.async condition must depend only on `p` (it selects whole thread groups)");
  EXPECT_EQ(inthreads_selection("p", 4, std::vector<std::int64_t>{})->message,
            "the inthreads.async condition selects no `p` in 0..3");
  EXPECT_EQ(inthreads_selection("p", 4, std::vector<std::int64_t>{0, 2})->message,
            "the inthreads.async condition must select a contiguous range of `p`");
  EXPECT_FALSE(inthreads_selection("p", 4, std::vector<std::int64_t>{1, 2}));
  EXPECT_FALSE(inthreads_regions(14));
  EXPECT_EQ(inthreads_regions(15)->rule, Rule::inthreads_limit);

  EXPECT_EQ(constant_required(what::tile_extent, "n", false).message, "a tile extent must be a constant, got `n`");
  EXPECT_EQ(constant_required(what::loop_bound, "i", true).message,
            "a loop bound must be known when the kernel is specialized; `i` is a runtime index");
  EXPECT_EQ(count_form(what::parallel_count, "M * 2").message,
            "a parallel count must be a constant or computed from a dynamic dim (`M`, `cdiv(M, 64)`, `M / 64`), got `M * 2`");

  EXPECT_FALSE(element_of_index("sp", 2, 1));
  EXPECT_EQ(element_of_index("sp", 2, 2)->message, "`sp` has 2 elements; `sp(2)` is not one of them");
  EXPECT_FALSE(index_value("y", 4, -4));
  EXPECT_EQ(index_value("y", 4, 4)->message, "`y` takes 4 values; `(4)` is not one of them");

  EXPECT_FALSE(buffer_array_size(1));
  EXPECT_EQ(buffer_array_size(0)->message, "an array of buffers needs at least one");
  EXPECT_FALSE(align_multiple("alignup", 64));
  EXPECT_EQ(align_multiple("alignup", 0)->message, "`alignup` aligns to a positive multiple, got 0");
  EXPECT_FALSE(returned_declaration("out", "f32 [4]", "f32 [4]"));
  EXPECT_EQ(returned_declaration("out", "f32 [4]", "f32 [8]")->message,
            "`out` is declared f32 [4] but the function returns f32 [8]");
  EXPECT_FALSE(tma_in_threads(true));
  EXPECT_EQ(tma_in_threads(false)->rule, Rule::tma_scope);
  EXPECT_FALSE(span_as_extents(true, "[4, 8]"));
  EXPECT_EQ(span_as_extents(false, "[0, 8]")->message, "`.span_as` needs positive extents, got [0, 8]");
  EXPECT_EQ(chunkat_index("k").hint, "use `subspan(...).at(...)` for tiles of an explicit size");
  EXPECT_EQ(extent_of_index("x").message, "`#` gives the extent of a parallel or loop index; `x` is not one");
  EXPECT_EQ(compose_index("x").rule, Rule::compose_needs_index);
}

}  // namespace
}  // namespace croq::sema::test
