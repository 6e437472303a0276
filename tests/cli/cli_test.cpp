// The croq compile / run / bench subcommands and the .npy reader/writer.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/npy.hpp"
#include "common/croq_command.hpp"
#include "croq/croq.hpp"

namespace croq::cli {
namespace {

TEST(Npy, RoundTripsEveryNumpyDtype) {
  TempDir dir;
  for (DType t : {DType::s8, DType::u8, DType::s16, DType::u16, DType::s32, DType::u32, DType::s64, DType::u64,
                  DType::f16, DType::f32, DType::f64}) {
    Tensor a = Tensor::empty(t, Shape{3, 5}, MemoryKind::host);
    auto* bytes = static_cast<unsigned char*>(a.data());
    for (std::size_t i = 0; i < a.bytes(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
    std::string path = (dir.path() / "a.npy").string();
    write_npy(path, a);
    Tensor b = read_npy(path);
    EXPECT_EQ(b.dtype(), t);
    EXPECT_EQ(b.shape(), (Shape{3, 5}));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.bytes()), 0) << dtype_name(t);
    // Data starts on a 64-byte boundary, as NumPy writes it.
    EXPECT_EQ((std::filesystem::file_size(path) - a.bytes()) % 64, 0u);
  }
  Tensor scalar_row = Tensor::empty(DType::f32, Shape{7}, MemoryKind::host);
  write_npy((dir.path() / "v.npy").string(), scalar_row);
  EXPECT_EQ(read_npy((dir.path() / "v.npy").string()).shape(), (Shape{7}));
}

TEST(Npy, BadFilesAreNamed) {
  TempDir dir;
  std::string path = (dir.path() / "bad.npy").string();
  std::ofstream(path) << "not numpy";
  try {
    read_npy(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": not a readable .npy file: missing \\x93NUMPY magic");
  }
  Tensor a = Tensor::empty(DType::f32, Shape{4, 4}, MemoryKind::host);
  write_npy(path, a);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
  try {
    read_npy(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": not a readable .npy file: data ends before 64 bytes of f32 [4, 4]");
  }
  EXPECT_THROW(read_npy((dir.path() / "missing.npy").string()), Error);
}

TEST(CroqCompile, EmitsCudaPtxCubinIrAndAst) {
  TempDir dir;
  auto cuda = run_process({kCroq, "compile", kAdd, "--shape", "M=100", "--shape", "N=300"}, {}, dir.path());
  ASSERT_EQ(cuda.exit_code, 0) << cuda.err;
  EXPECT_NE(cuda.out.find("extern \"C\" __global__ void __launch_bounds__(256) croq_add("), std::string::npos) << cuda.out;
  EXPECT_NE(cuda.out.find("f32 [100, 300] f32 [100, 300]"), std::string::npos) << cuda.out;

  auto ptx = run_process({kCroq, "compile", kAdd, "--emit", "ptx", "--shape", "M=8", "--shape", "N=8", "--arch", "sm_90a"},
                         {}, dir.path());
  ASSERT_EQ(ptx.exit_code, 0) << ptx.err;
  EXPECT_NE(ptx.out.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(ptx.out.find(".entry croq_add"), std::string::npos);

  std::string cubin = (dir.path() / "add.cubin").string();
  auto bin = run_process({kCroq, "compile", kAdd, "--emit=cubin", "-o", cubin, "--shape=M=8", "--shape=N=8"}, {}, dir.path());
  ASSERT_EQ(bin.exit_code, 0) << bin.err;
  std::ifstream in(cubin, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "ELF");

  auto ast = run_process({kCroq, "compile", kAdd, "--emit", "ast"}, {}, dir.path());
  ASSERT_EQ(ast.exit_code, 0) << ast.err;
  EXPECT_NE(ast.out.find("add"), std::string::npos);

  // The tile IR after the passes: the kernel, its buffers and the flat region.
  auto ir = run_process({kCroq, "compile", kAdd, "--emit", "ir", "--shape", "M=8", "--shape", "N=8"}, {}, dir.path());
  ASSERT_EQ(ir.exit_code, 0) << ir.err;
  EXPECT_EQ(ir.out.rfind("kernel croq_add: grid 1, block 64, shared 0 bytes\n", 0), 0u) << ir.out;
  EXPECT_NE(ir.out.find("  buffer arg_lhs: global f32 [8, 8]\n"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("  region flat:\n"), std::string::npos) << ir.out;
  // 4 elements a thread (vectorize_elementwise), added in registers.
  EXPECT_NE(ir.out.find("// 4 elements per thread (16 vectors)"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("output_vec_6[k_7] = (lhs_vec_4[k_7] + rhs_vec_5[k_7])"), std::string::npos) << ir.out;
}

TEST(CroqCompile, ErrorsAreClear) {
  TempDir dir;
  auto missing = run_process({kCroq, "compile", kAdd, "--shape", "M=4"}, {}, dir.path());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "parameter 'lhs' has the symbolic dim N; give it with --shape N=N\n");
  auto bad_emit = run_process({kCroq, "compile", kAdd, "--emit", "sass"}, {}, dir.path());
  EXPECT_EQ(bad_emit.exit_code, 2);
  EXPECT_NE(bad_emit.err.find("--emit takes ast, ir, cuda, ptx, cubin or info, got `sass`"), std::string::npos);
  auto cubin_stdout = run_process({kCroq, "compile", kAdd, "--emit", "cubin"}, {}, dir.path());
  EXPECT_EQ(cubin_stdout.exit_code, 2);
  auto bad_shape = run_process({kCroq, "compile", kAdd, "--shape", "M=-3"}, {}, dir.path());
  EXPECT_EQ(bad_shape.exit_code, 2);
  EXPECT_NE(bad_shape.err.find("--shape needs NAME=POSITIVE_INTEGER, got `M=-3`"), std::string::npos);
  auto help = run_process({kCroq, "run", "--help"}, {}, dir.path());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--arg NAME=FILE.npy"), std::string::npos) << help.out;
}

TEST(CroqRun, WithoutGpuExplainsAndFails) {
  std::string why;
  if (cuda_available(&why)) GTEST_SKIP() << "a GPU is present; tests/gpu covers croq run";
  TempDir dir;
  auto r = run_process({kCroq, "run", kAdd, "--random", "1", "--shape", "M=4", "--shape", "N=4"}, {}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("croq run: running a kernel needs a CUDA GPU"), std::string::npos) << r.err;
  auto no_input = run_process({kCroq, "run", kAdd, "--shape", "M=4", "--shape", "N=4"}, {}, dir.path());
  EXPECT_EQ(no_input.exit_code, 2);
  EXPECT_NE(no_input.err.find("no input for parameter 'lhs'; give --arg lhs=FILE.npy or --random SEED"),
            std::string::npos) << no_input.err;
}

// A source with bytes that are not UTF-8, and a message long enough to be
// cut inside a character: `croq check --json` still prints JSON (it printed
// nothing and aborted on nlohmann's type_error 316), with U+FFFD for them.
TEST(CroqCheck, JsonOfTextThatIsNotUtf8) {
  TempDir dir;
  const std::string source_path = (dir.path() / "latin1.co").string();
  std::string text = "#error caf\xE9 ";
  for (int i = 0; i < 1500; ++i) text += "\xC3\xA9";
  std::ofstream(source_path) << text << "\n";
  auto r = run_process({kCroq, "check", "--json", source_path}, {}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);  // throws (fails the test) when it is not JSON
  ASSERT_EQ(j["diagnostics"].size(), 1u) << r.out;
  std::string expected = "#error: caf\xEF\xBF\xBD ";
  for (int i = 0; i < 942; ++i) expected += "\xC3\xA9";
  expected += "... (1,116 more bytes)";
  EXPECT_EQ(j["diagnostics"][0]["message"], expected);
  auto human = run_process({kCroq, "check", source_path}, {}, dir.path());
  EXPECT_EQ(human.exit_code, 1);
  EXPECT_EQ(human.err.rfind(source_path + ":1:2: error: #error: caf\xEF\xBF\xBD \xC3\xA9", 0), 0u) << human.err;
}

// A function whose shapes the source fixes goes through lowering in `croq
// check` too: what compile refuses for those shapes (a TMA swizzle span
// that is not the tile's row) is a warning saying so, where check used to
// accept the file silently. The same function with a symbolic dim cannot
// be sized without a call: no such warning.
TEST(CroqCheck, ConstantShapesAreSpecializedAsCompileWould) {
  TempDir dir;
  auto write = [&](const std::string& name, const std::string& shape) {
    const std::string path = (dir.path() / name).string();
    std::ofstream(path) << "__co__ void f(global bf16 [" << shape << "] q) {\n"
                           "  parallel b by 1 : block {\n"
                           "    shared bf16 [128, 128] q_s;\n"
                           "    tma.copy.swiz<128> q => q_s;\n"
                           "  }\n"
                           "}\n";
    return path;
  };
  const std::string fixed = write("fixed.co", "128, 128"), symbolic = write("symbolic.co", "M, 128");
  auto check = run_process({kCroq, "check", fixed}, {}, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.err.find(fixed + ":4:"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("warning: tma.copy.swiz<128> needs tile rows of exactly 128 bytes (64 bf16), got 256"),
            std::string::npos) << check.err;
  EXPECT_NE(check.err.find("croq::compile rejects it when it specializes `f` for its constant shapes"),
            std::string::npos) << check.err;
  auto compile = run_process({kCroq, "compile", fixed}, {}, dir.path());
  EXPECT_NE(compile.exit_code, 0);
  EXPECT_NE(compile.err.find("error: tma.copy.swiz<128> needs tile rows of exactly 128 bytes"), std::string::npos)
      << compile.err;
  auto open = run_process({kCroq, "check", symbolic}, {}, dir.path());
  EXPECT_EQ(open.exit_code, 0) << open.err;
  EXPECT_EQ(open.err.find("warning"), std::string::npos) << open.err;
}

}  // namespace
}  // namespace croq::cli
