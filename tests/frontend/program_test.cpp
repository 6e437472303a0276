// Whole programs: host code skipped, __device__ code kept verbatim, entry
// selection, warnings vs errors, and locations on AST nodes.
#include <nlohmann/json.hpp>

#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

const char* kHostProgram = R"(#include <iostream>
#include "croqtile.h"
using namespace std;

struct Config { int tiles[4] = {1, 2, 3, 4}; };
static int helper(int x) { if (x) { return 1; } return 0; }

template <typename T>
__device__ __forceinline__ T twice(T v) { return v + v; }

__co__ void first(s32 [16] x) { call twice(x.at(0)); }

__device__ int counter;

__co__ s32 [16] second(s32 [16] x) { return x; }

int main() {
  auto a = croq::make_spandata<croq::s32>(16);
  std::cout << "}" << '{' << std::endl;
}
)";

TEST(Program, SkipsHostCodeAndKeepsDeviceCodeVerbatim) {
  auto program = parse_ok(kHostProgram);
  ASSERT_NE(program, nullptr);
  ASSERT_EQ(program->functions.size(), 2u);
  EXPECT_EQ(program->functions[0].name, "first");
  EXPECT_EQ(program->functions[1].name, "second");
  ASSERT_EQ(program->device_code.size(), 2u);
  EXPECT_EQ(program->device_code[0].name, "twice");
  EXPECT_EQ(program->device_code[0].text,
            "template <typename T>\n__device__ __forceinline__ T twice(T v) { return v + v; }");
  EXPECT_EQ(program->device_code[0].location.line, 8);
  EXPECT_EQ(program->device_code[1].text, "__device__ int counter;");
  EXPECT_EQ(program->source, kHostProgram);
}

// In a `__cok__` block, `__co_device__` qualifies CUDA functions: the block
// is device code, and the __co__ function after it is parsed.
TEST(Program, CokBlockWithCoDeviceFunctionsIsDeviceCode) {
  const char* source =
      "__cok__ {\n__co_device__ extern \"C\" void add(int* a, int n) {\n  for (int i = 0; i < n; ++i) a[i] += 1;\n}\n}\n"
      "__co__ void f(s32 [16] x) { parallel p by 1 { call add(x, 16); } }\n";
  auto program = parse_ok(source);
  ASSERT_NE(program, nullptr);
  ASSERT_EQ(program->functions.size(), 1u);
  EXPECT_EQ(program->functions[0].name, "f");
  ASSERT_EQ(program->device_code.size(), 1u);
  // The text CUDA gets starts inside the block's braces, on line 2.
  EXPECT_EQ(program->device_code[0].location.line, 2);
}

TEST(Program, SelectEntry) {
  auto program = parse_ok(kHostProgram);
  ASSERT_NE(program, nullptr);
  CompileOptions options;
  options.entry = "second";
  EXPECT_EQ(select_entry(*program, options, kHostProgram).name, "second");

  options.entry = "third";
  try {
    select_entry(*program, options, kHostProgram);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message, "no __co__ function named `third`; the source defines `first`, `second`");
  }

  options.entry.clear();
  try {
    select_entry(*program, options, kHostProgram);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostics()[0].message,
              "the source defines several __co__ functions (`first`, `second`); choose one with the entry option");
  }
}

TEST(Program, SelectEntryWithOneOrNoFunction) {
  auto one = parse_ok("__co__ void only() { }");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(select_entry(*one, {}, one->source).name, "only");

  auto none = parse_ok("int main() { return 0; }");
  ASSERT_NE(none, nullptr);
  try {
    select_entry(*none, {}, none->source);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostics()[0].message, "no __co__ function in the source");
  }
}

TEST(Program, FunctionsInsideNamespacesAreFound) {
  auto program = parse_ok("namespace k { namespace inner {\n__co__ void f() { } } }\n__co__ void g() { }");
  ASSERT_NE(program, nullptr);
  ASSERT_EQ(program->functions.size(), 2u);
  EXPECT_EQ(program->functions[0].name, "f");
}

TEST(Program, SignatureParts) {
  auto program = parse_ok(
      "template <typename T, int N>\n"
      "__co__ f32 [lhs.span(0), 64] k(global T [M, N] lhs, shared s32 [16] s, local f16 [2, 2] l, int n) { }");
  ASSERT_NE(program, nullptr);
  const ast::Function& f = program->functions[0];
  EXPECT_TRUE(f.is_template);
  ASSERT_EQ(f.template_params.size(), 2u);
  EXPECT_EQ(f.template_params[0].kind, "typename");
  EXPECT_EQ(f.return_type.name, "f32");
  ASSERT_EQ(f.return_type.shape.size(), 2u);
  EXPECT_EQ(print_expression(*f.return_type.shape[0]), "(.span() lhs 0)");
  ASSERT_EQ(f.params.size(), 4u);
  EXPECT_EQ(f.params[0].type.storage, ast::Storage::global);
  EXPECT_EQ(f.params[0].type.kind, ast::TypeKind::named);
  EXPECT_EQ(f.params[0].type.name, "T");
  EXPECT_EQ(f.params[1].type.storage, ast::Storage::shared);
  EXPECT_EQ(f.params[2].type.storage, ast::Storage::local);
  EXPECT_EQ(f.params[3].type.kind, ast::TypeKind::int_);
  EXPECT_FALSE(f.params[3].type.has_shape);
  EXPECT_EQ(f.params[3].location.line, 2);
  EXPECT_EQ(f.location.column, 30);
}

TEST(Program, EveryNodeHasALocation) {
  const std::string source =
      "__co__ void f(s32 [8] x) {\n"
      "  parallel p by 2 {\n"
      "    g = dma.copy x.chunkat(p) => shared;\n"
      "    foreach i in [4] x.at(p # i) = g.data.at(i) + 1;\n"
      "  }\n"
      "}\n";
  auto program = parse_ok(source);
  ASSERT_NE(program, nullptr);
  const auto& parallel = std::get<ast::Parallel>(first_statement(*program).node);
  EXPECT_EQ(first_statement(*program).location.line, 2);
  EXPECT_EQ(first_statement(*program).location.column, 3);
  EXPECT_EQ(parallel.levels[0].indices[0].location.column, 12);
  EXPECT_EQ(parallel.levels[0].count->location.column, 17);
  const auto& body = std::get<ast::Block>(parallel.body->node);
  const ast::Stmt& copy_stmt = *body.statements[0];
  EXPECT_EQ(copy_stmt.location.line, 3);
  EXPECT_EQ(copy_stmt.location.column, 5);
  EXPECT_EQ(copy_stmt.location.length, 35);  // `g = ... shared`
  const auto& copy = std::get<ast::Copy>(copy_stmt.node);
  EXPECT_EQ(copy.source->location.column, 20);  // the `chunkat` member
  EXPECT_EQ(copy.op_location.column, 13);
  const auto& loop = std::get<ast::Loop>(body.statements[1]->node);
  const auto& assign = std::get<ast::Assignment>(loop.body->node);
  const auto& at = std::get<ast::Member>(assign.target->node);
  EXPECT_EQ(at.kind, ast::MemberKind::at);
  EXPECT_EQ(at.args[0]->location.column, 27);  // `p` of `p # i`
  EXPECT_EQ(std::get<ast::Binary>(at.args[0]->node).op, ast::BinaryOp::compose);
  const auto& sum = std::get<ast::Binary>(assign.value->node);
  EXPECT_EQ(sum.rhs->location.column, 51);
}

TEST(Program, BoundedOffsetsBindTighterThanArithmetic) {
  // `p # q #- 1` is `(p # q) #- 1`; `#+` with a space inside is `# (+1)`.
  auto program = parse_ok("__co__ void f() {\n  parallel p by 2, q by 4 {\n    a = p # q #- 1 * 2;\n    b = q # +1;\n  }\n}\n");
  ASSERT_NE(program, nullptr);
  const auto& parallel = std::get<ast::Parallel>(first_statement(*program).node);
  const auto& body = std::get<ast::Block>(parallel.body->node);
  const auto& a = std::get<ast::Assignment>(body.statements[0]->node);
  const auto& product = std::get<ast::Binary>(a.value->node);
  EXPECT_EQ(product.op, ast::BinaryOp::mul);
  const auto& moved = std::get<ast::Binary>(product.lhs->node);
  EXPECT_EQ(moved.op, ast::BinaryOp::sub);
  EXPECT_TRUE(moved.moves_bound);  // q itself, counted one value fewer
  EXPECT_EQ(std::get<ast::Binary>(moved.lhs->node).op, ast::BinaryOp::compose);
  const auto& b = std::get<ast::Assignment>(body.statements[1]->node);
  EXPECT_EQ(std::get<ast::Binary>(b.value->node).op, ast::BinaryOp::compose);
}

TEST(Program, UnknownCopyModifierFarFromKnownOnesIsKept) {
  // Modifiers the parser does not know are left for later stages to judge,
  // unless they look like a typo of a known one (see the errors tests).
  auto program = parse_ok("__co__ void f(s32 [8] x) { dma.copy.prefetch_l2 x => shared; }");
  ASSERT_NE(program, nullptr);
  const auto& copy = std::get<ast::Copy>(first_statement(*program).node);
  ASSERT_EQ(copy.modifiers.size(), 1u);
  EXPECT_EQ(copy.modifiers[0].name, "prefetch_l2");
  EXPECT_EQ(copy.destination_storage, ast::Storage::shared);
}

TEST(Program, CompileErrorCarriesAllDiagnosticsAndJson) {
  try {
    CompileOptions options;
    options.source_name = "bad.co";
    parse_program("__co__ void f() {\n  wait;\n  x = ;\n}\n", options);
    FAIL() << "expected errors";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.source_name(), "bad.co");
    EXPECT_NE(std::string(e.what()).find("bad.co:2:7: error: expected a future or event after `wait`, found `;`"),
              std::string::npos)
        << e.what();
    nlohmann::json json = nlohmann::json::parse(e.to_json());
    EXPECT_EQ(json["source"], "bad.co");
    EXPECT_EQ(json["diagnostics"][1]["line"], 3);
    EXPECT_EQ(json["diagnostics"][1]["message"], "expected a value after `=`, found `;`");
  }
}

}  // namespace
}  // namespace croq::frontend::testing
