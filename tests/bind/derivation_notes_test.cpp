// Shape-dependent errors (found when a call binds the shapes) say where the
// values came from: one note per bound dim on the failing line, with the
// argument and dim it was read from, then the #defines on that line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cluster_sources.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate_cuda;
using test::tensor;

struct NotesCase {
  std::string name;
  std::string source;
  std::vector<ArgSignature> args;
  std::vector<std::string> dynamic;
  std::string message;
  int line = 0, column = 0;
  std::vector<std::string> notes;
};

class DerivationNotes : public ::testing::TestWithParam<NotesCase> {};

TEST_P(DerivationNotes, NameTheDimsTheArgumentsAndTheDefines) {
  const NotesCase& c = GetParam();
  CompileOptions options;
  options.source_name = "notes.co";
  auto program = frontend::parse_program(c.source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  try {
    generate_cuda(*program, fn, c.args, 227 * 1024, c.dynamic);
    ADD_FAILURE() << "expected: " << c.message;
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message, c.message) << e.what();
    EXPECT_EQ(d.line, c.line) << e.what();
    EXPECT_EQ(d.column, c.column) << e.what();
    EXPECT_EQ(d.notes, c.notes) << e.what();
    // The rendered error shows them, one `note:` line each.
    for (const std::string& note : c.notes)
      EXPECT_NE(std::string(e.what()).find("  note: " + note + "\n"), std::string::npos) << e.what();
  }
}

const char* const kTiledAdd =
    "#define TILE 64\n"
    "__co__ f32 [M, N] add(f32 [M, N] lhs, f32 [M, N] rhs) {\n"
    "  f32 [M, N] out;\n"
    "  parallel {p, q} by [M / TILE, 3] : block {\n"
    "    out.at(p, q) = lhs.at(p, q) + rhs.at(p, q);\n"
    "  }\n"
    "  return out;\n"
    "}\n";

const char* const kWholeTensorInShared =
    "__co__ void f(f32 [N] a) {\n"
    "  parallel p by 1 : block {\n"
    "    shared f32 [N] s;\n"
    "    s = dma.copy a => shared;\n"
    "    a.at(0) = s.at(0);\n"
    "  }\n"
    "}\n";

INSTANTIATE_TEST_SUITE_P(
    ShapeDependentErrors, DerivationNotes,
    ::testing::Values(
        NotesCase{"CountFromADimAndADefine", kTiledAdd,
                  {tensor(DType::f32, {32, 8}), tensor(DType::f32, {32, 8})}, {},
                  "a parallel count must be positive, got 0", 4, 22,
                  {"M = 32 from argument 1 'lhs', dim 0", "TILE = 64 (#define at line 1)"}},
        NotesCase{"SharedMemoryFromADim", kWholeTensorInShared, {tensor(DType::f32, {100000})}, {},
                  "this shared tile (400000 bytes) brings the shared memory of `f` to 400000 bytes per block for "
                  "this specialization; the device allows 232448",
                  3, 20, {"N = 100000 from argument 1 'a', dim 0"}},
        NotesCase{"DynamicDim", croq::test::cluster_ids_source(2), {tensor(DType::s32, {-1, 32})}, {"B"},
                  "the blocks of a clustered grid are counted at compile time, but `B` depends on a dynamic dim",
                  3, 19, {"B is a dynamic dim, read at launch from argument 1 'out', dim 0"}}),
    [](const auto& info) { return info.param.name; });

// An error on a line that names no dim has no notes: nothing there came from the call.
TEST(DerivationNotesAbsent, LineWithoutDims) {
  const std::string source =
      "__co__ void f(f32 [N] a) {\n"
      "  parallel p by 0\n"
      "    a.at(p) = 1;\n"
      "}\n";
  CompileOptions options;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  try {
    generate_cuda(*program, fn, {tensor(DType::f32, {8})}, 227 * 1024);
    ADD_FAILURE() << "a parallel count of 0 was accepted";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_TRUE(e.diagnostics()[0].notes.empty()) << e.what();
  }
}

}  // namespace
}  // namespace croq::pipeline
