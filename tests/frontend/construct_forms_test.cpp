// The constructs of tests/frontend/CONSTRUCTS.md that the other frontend
// tests leave out: what the parser records for each (the goldens show the
// same trees as text).
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

using namespace ast;

const StmtList& statements(const Function& f) { return std::get<Block>(f.body->node).statements; }

TEST(ConstructForms, FragAccumulatorArraysAreFills) {
  auto program = parse_ok(
      "__co__ void f(f16 [64, 16] a, f16 [16, 64] b) {\n"
      "  frag mc[2][3] {0.0f};\n"
      "  frag.s32 acc {0};\n"
      "  mma.row.col mc[0][1], a, b;\n"
      "  frag f32 [64] row {0.0f};\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = statements(program->functions.at(0));
  const auto& array = std::get<Mma>(body.at(0)->node);
  EXPECT_TRUE(array.frag_declaration);
  EXPECT_EQ(array.op, MmaOp::fill);
  EXPECT_EQ(print_expression(*array.result), "mc");
  ASSERT_EQ(array.array_dims.size(), 2u);
  EXPECT_EQ(print_expression(*array.array_dims[1]), "3");
  ASSERT_EQ(array.operands.size(), 1u);
  EXPECT_EQ(print_expression(*array.operands[0]), "0.0f");
  const auto& typed = std::get<Mma>(body.at(1)->node);
  ASSERT_EQ(typed.modifiers.size(), 1u);
  EXPECT_EQ(typed.modifiers[0].name, "s32");
  EXPECT_TRUE(typed.array_dims.empty());
  // An element of the array is an mma operand like any accumulator.
  const auto& multiply = std::get<Mma>(body.at(2)->node);
  EXPECT_EQ(print_expression(*multiply.operands.at(0)), "(index (index mc 0) 1)");
  // With an element type and a shape, `frag` declares a register tile instead.
  const auto& tile = std::get<Declaration>(body.at(3)->node);
  EXPECT_EQ(tile.type.storage, Storage::frag);
  EXPECT_EQ(tile.type.name, "f32");
}

TEST(ConstructForms, RankOnlyAndAutoReturnTypes) {
  auto program = parse_ok(
      "__co__ s32 mdspan<3> ranked(s32 [4, 4, 4] a) { s32 [a.span] out; return out; }\n"
      "__co__ auto inferred(s32 [4] a) { s32 [a.span] out; return out; }\n");
  ASSERT_NE(program, nullptr);
  const TypeRef& ranked = program->functions.at(0).return_type;
  EXPECT_EQ(ranked.kind, TypeKind::element);
  ASSERT_NE(ranked.rank, nullptr);
  EXPECT_EQ(print_expression(*ranked.rank), "3");
  EXPECT_TRUE(is_rank_only(ranked));
  EXPECT_EQ(program->functions.at(1).return_type.kind, TypeKind::auto_);
  // Both return the declaration of `out`.
  for (const Function& f : program->functions) {
    const TypeRef* returned = returned_tensor_type(f);
    ASSERT_NE(returned, nullptr) << f.name;
    EXPECT_EQ(returned->name, "s32");
  }
}

TEST(ConstructForms, ItupleDeclarationsAndSpans) {
  auto program = parse_ok("__co__ void f() {\n  ituple<3> t = {1, 2, 3};\n  a : [7, 8, 9];\n}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = statements(program->functions.at(0));
  const auto& tuple = std::get<Declaration>(body.at(0)->node);
  EXPECT_EQ(tuple.type.kind, TypeKind::ituple);
  EXPECT_EQ(print_expression(*tuple.type.rank), "3");
  EXPECT_EQ(tuple.declarators.at(0).init, Declarator::Init::equals);
  EXPECT_EQ(print_expression(*tuple.declarators.at(0).init_values.at(0)), "{1 2 3}");
  const auto& span = std::get<Declaration>(body.at(1)->node);
  EXPECT_EQ(span.type.kind, TypeKind::mdspan);
  EXPECT_EQ(span.declarators.at(0).init, Declarator::Init::colon);
  EXPECT_EQ(print_expression(*span.declarators.at(0).init_values.at(0)), "[7 8 9]");
}

TEST(ConstructForms, CoDeviceFunctionsDeviceCodeAndCokBlocks) {
  auto program = parse_ok(
      "__device__ float scale(float v) { return v * 2.0f; }\n"
      "__cok__ {\n  __device__ int one() { return 1; }\n}\n"
      "__co_device__ void helper(f32 [16] x) { }\n"
      "__co__ void k(f32 [16] x) { }\n");
  ASSERT_NE(program, nullptr);
  ASSERT_EQ(program->functions.size(), 2u);
  EXPECT_TRUE(program->functions[0].is_co_device);
  EXPECT_EQ(program->functions[0].name, "helper");
  EXPECT_FALSE(program->functions[1].is_co_device);
  ASSERT_EQ(program->device_code.size(), 2u);
  EXPECT_EQ(program->device_code[0].name, "scale");
  // A __cok__ block's braces are Croqtile's: CUDA gets what is inside.
  EXPECT_EQ(program->device_code[1].text, "__device__ int one() { return 1; }");
  EXPECT_EQ(program->device_code[1].location.line, 3);
  // The functions `call` may name: the __device__ ones, with their return types.
  ASSERT_EQ(program->device_code[0].functions.size(), 1u);
  EXPECT_EQ(program->device_code[0].functions[0].return_type, "float");
  ASSERT_EQ(program->device_code[1].functions.size(), 1u);
  EXPECT_EQ(program->device_code[1].functions[0].name, "one");
}

TEST(ConstructForms, InlineAssembly) {
  auto program = parse_ok(
      "__co__ void f(int v) {\n  __asm__ volatile(\"mov.u32 %0, %1;\" : \"=r\"(r) : \"r\"(v) : \"memory\");\n}\n");
  ASSERT_NE(program, nullptr);
  const auto& a = std::get<Asm>(statements(program->functions.at(0)).at(0)->node);
  EXPECT_TRUE(a.is_volatile);
  ASSERT_EQ(a.templates.size(), 1u);
  EXPECT_EQ(a.templates[0], "\"mov.u32 %0, %1;\"");
  ASSERT_EQ(a.outputs.size(), 1u);
  EXPECT_EQ(a.outputs[0].constraint, "\"=r\"");
  ASSERT_EQ(a.inputs.size(), 1u);
  EXPECT_EQ(print_expression(*a.inputs[0].value), "v");
  ASSERT_EQ(a.clobbers.size(), 1u);
}

TEST(ConstructForms, MathBuiltinsAtomicsAndCallStatements) {
  auto program = parse_ok(
      "__co__ void f(f32 [8] x, int a) {\n"
      "  y = __sqrt(x.at(0)) + __pow(x.at(1), 2.0f);\n"
      "  __atomic_add(x.at(0), 1.0f);\n"
      "  call helper<4>(a, 1);\n"
      "}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = statements(program->functions.at(0));
  EXPECT_EQ(print_expression(*std::get<Assignment>(body.at(0)->node).value),
            "(+ (call __sqrt (.at() x 0)) (call __pow (.at() x 1) 2.0f))");
  EXPECT_EQ(print_expression(*std::get<ExprStatement>(body.at(1)->node).expr), "(call __atomic_add (.at() x 0) 1.0f)");
  const auto& call = std::get<CallStatement>(body.at(2)->node);
  EXPECT_EQ(call.callee, "helper");
  EXPECT_EQ(call.template_args.size(), 1u);
  EXPECT_EQ(call.args.size(), 2u);
}

TEST(ConstructForms, OneIndexOverASeveralDimensionBound) {
  auto program = parse_ok("__co__ void f() {\n  foreach idx in [4, 8] { }\n}\n");
  ASSERT_NE(program, nullptr);
  const auto& loop = std::get<Loop>(statements(program->functions.at(0)).at(0)->node);
  ASSERT_EQ(loop.indices.size(), 1u);
  EXPECT_EQ(loop.indices[0].name.name, "idx");
  EXPECT_FALSE(loop.braced);
  EXPECT_EQ(print_expression(*loop.bound), "[4 8]");
}

TEST(ConstructForms, TmaLoadWithEvictionHints) {
  auto program = parse_ok(
      "__co__ void f(f16 [64, 64] m) {\n  h = tma.load.async.evict_last.swiz<128> m => shared;\n}\n");
  ASSERT_NE(program, nullptr);
  const auto& copy = std::get<Copy>(statements(program->functions.at(0)).at(0)->node);
  EXPECT_EQ(copy.engine, Engine::tma);
  EXPECT_EQ(copy.op, CopyOp::load);
  ASSERT_EQ(copy.modifiers.size(), 3u);
  EXPECT_EQ(copy.modifiers[0].name, "async");
  EXPECT_EQ(copy.modifiers[1].name, "evict_last");
  EXPECT_EQ(copy.modifiers[2].name, "swiz");
  EXPECT_EQ(copy.destination_storage, Storage::shared);
}

TEST(ConstructForms, NarrowFloatAndSubByteElementTypes) {
  auto program = parse_ok(
      "__co__ void f(f8_e5m2 [8] a) {\n  f6_e3m2 [8] b;\n  f4_e2m1 [8] c;\n  u2 [8] d;\n  s4 [8] e;\n}\n");
  ASSERT_NE(program, nullptr);
  EXPECT_EQ(program->functions.at(0).params.at(0).type.kind, TypeKind::element);
  std::vector<std::string> names;
  for (const StmtPtr& s : statements(program->functions.at(0))) {
    const auto& d = std::get<Declaration>(s->node);
    EXPECT_EQ(d.type.kind, TypeKind::element) << d.type.name;
    names.push_back(d.type.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"f6_e3m2", "f4_e2m1", "u2", "s4"}));
}

TEST(ConstructForms, EventArraysOfSeveralDimsAndStorages) {
  auto program = parse_ok(
      "__co__ void f() {\n  global event done[3];\n  parallel p by 2 {\n    local event e[2][2];\n"
      "    shared event<64> full[2][4] = ready;\n  }\n}\n");
  ASSERT_NE(program, nullptr);
  const StmtList& body = statements(program->functions.at(0));
  const auto& global = std::get<Declaration>(body.at(0)->node);
  EXPECT_EQ(global.type.kind, TypeKind::event);
  EXPECT_EQ(global.type.storage, Storage::global);
  const StmtList& inner = std::get<Block>(std::get<Parallel>(body.at(1)->node).body->node).statements;
  const auto& local = std::get<Declaration>(inner.at(0)->node);
  EXPECT_EQ(local.type.storage, Storage::local);
  ASSERT_EQ(local.declarators.at(0).more_array_dims.size(), 1u);
  const auto& shared = std::get<Declaration>(inner.at(1)->node);
  EXPECT_EQ(print_expression(*shared.type.arrivals), "64");
  const Declarator& full = shared.declarators.at(0);
  EXPECT_EQ(print_expression(*full.array_size), "2");
  EXPECT_EQ(print_expression(*full.more_array_dims.at(0)), "4");
  EXPECT_EQ(full.init, Declarator::Init::equals);
}

}  // namespace
}  // namespace croq::frontend::testing
