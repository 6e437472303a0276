// The element-wise vectorization (passes/elementwise_pass.cpp) through the
// whole pipeline: which kernels it takes, the widths it picks per element
// type, the tail, and that NVRTC compiles the result for sm_90a (no GPU).
// The row reductions of samples/row_norm_source.hpp compile too, with their
// chunk loads as 16-byte vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../samples/row_norm_source.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::contains;
using test::count;
using test::generate;
using test::tensor;

std::string compile_ptx(const GeneratedKernel& k) {
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "elementwise.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty()) << k.cuda_source;
  return out.ptx;
}

// PTX lines of 16-byte global loads (ld.global.v4 or ld.global.nc.v4) or stores.
std::size_t vector_accesses(const std::string& ptx, const std::string& op) {
  std::size_t n = 0, at = 0;
  while (at < ptx.size()) {
    const std::size_t end = std::min(ptx.find('\n', at), ptx.size());
    const std::string line = ptx.substr(at, end - at);
    if (contains(line, op + ".global") && contains(line, ".v4.")) ++n;
    at = end + 1;
  }
  return n;
}

std::string add_source(const std::string& t) {
  return "__co__ void add(" + t + " [M, N] lhs, " + t + " [M, N] rhs, " + t + " [M, N] out) {\n"
         "  parallel {i, j} by [M, N]\n"
         "    out.at(i, j) = lhs.at(i, j) + rhs.at(i, j);\n"
         "}\n";
}

struct AddCase {
  const char* element;
  std::int64_t m, n;
  std::int64_t vector;  // elements per thread
  std::int64_t tail;    // elements past the last whole vector
};

class ElementwiseAdd : public ::testing::TestWithParam<AddCase> {};

// f32 takes 4 elements (16 bytes) a thread, f16 and bf16 8; sizes that are
// no multiple of the vector run the rest one element per thread.
TEST_P(ElementwiseAdd, VectorizesWithATailAndCompiles) {
  const AddCase& c = GetParam();
  const DType t = test::dtype_of(c.element);
  GeneratedKernel k = generate(add_source(c.element), {tensor(t, {c.m, c.n}), tensor(t, {c.m, c.n}), tensor(t, {c.m, c.n})});
  const std::int64_t total = c.m * c.n, vectors = total / c.vector;
  EXPECT_EQ(total % c.vector, c.tail);
  EXPECT_TRUE(contains(k.ir, std::to_string(c.vector) + " elements per thread (" + std::to_string(vectors) + " vectors" +
                                 (c.tail ? ", then a tail of " + std::to_string(c.tail) : "") + ")"))
      << k.ir;
  // One thread per vector (or per tail element, when there are more).
  const std::int64_t threads = std::max(vectors, c.tail);
  EXPECT_EQ(k.launch.grid[0], static_cast<unsigned>((threads + 255) / 256)) << k.ir;
  EXPECT_TRUE(contains(k.cuda_source, "16-byte vectors of " + std::to_string(c.vector)))
      << k.cuda_source;
  const std::string ptx = compile_ptx(k);
  EXPECT_GE(vector_accesses(ptx, "ld"), 2u) << ptx;  // lhs and rhs, 16 bytes each
  EXPECT_GE(vector_accesses(ptx, "st"), 1u) << ptx;
}

INSTANTIATE_TEST_SUITE_P(Elements, ElementwiseAdd,
                         ::testing::Values(AddCase{"f32", 64, 256, 4, 0}, AddCase{"f32", 7, 1001, 4, 3},
                                           AddCase{"f16", 64, 256, 8, 0}, AddCase{"f16", 3, 1001, 8, 3},
                                           AddCase{"bf16", 5, 999, 8, 3}, AddCase{"bf16", 1, 8, 8, 0}),
                         [](const auto& info) {
                           return std::string(info.param.element) + "_" + std::to_string(info.param.m) + "x" +
                                  std::to_string(info.param.n);
                         });

// A cast f32 -> bf16: 8 elements a thread (16 bytes of bf16, two 16-byte
// f32 loads), a tail of 3.
TEST(ElementwiseCast, EightElementsPerThread) {
  GeneratedKernel k = generate("__co__ void cast(f32 [N] x, bf16 [N] y) {\n"
                               "  parallel i by N\n"
                               "    y.at(i) = x.at(i);\n"
                               "}\n",
                               {tensor(DType::f32, {1003}), tensor(DType::bf16, {1003})});
  EXPECT_TRUE(contains(k.ir, "8 elements per thread (125 vectors, then a tail of 3)")) << k.ir;
  const std::string ptx = compile_ptx(k);
  EXPECT_GE(vector_accesses(ptx, "ld"), 2u) << ptx;
  EXPECT_GE(vector_accesses(ptx, "st"), 1u) << ptx;
}

// The fused multiply-add of three bf16 tensors.
TEST(ElementwiseFma, ThreeInputs) {
  const auto t = tensor(DType::bf16, {7, 1001});
  GeneratedKernel k = generate("__co__ void fma(bf16 [M, N] a, bf16 [M, N] b, bf16 [M, N] c, bf16 [M, N] out) {\n"
                               "  parallel {i, j} by [M, N]\n"
                               "    out.at(i, j) = a.at(i, j) * b.at(i, j) + c.at(i, j);\n"
                               "}\n",
                               {t, t, t, t});
  EXPECT_TRUE(contains(k.ir, "8 elements per thread (875 vectors, then a tail of 7)")) << k.ir;
  const std::string ptx = compile_ptx(k);
  EXPECT_GE(vector_accesses(ptx, "ld"), 3u) << ptx;
}

// Not element-wise: a transpose and a broadcast keep one element a thread.
TEST(ElementwiseVector, LeavesOtherAccessPatternsAlone) {
  GeneratedKernel transpose = generate("__co__ void t(f32 [M, N] x, f32 [N, M] y) {\n"
                                       "  parallel {i, j} by [M, N]\n"
                                       "    y.at(j, i) = x.at(i, j);\n"
                                       "}\n",
                                       {tensor(DType::f32, {64, 32}), tensor(DType::f32, {32, 64})});
  EXPECT_FALSE(contains(transpose.ir, "elements per thread")) << transpose.ir;
  GeneratedKernel broadcast = generate("__co__ void s(f32 [M, N] x, f32 [N] w, f32 [M, N] y) {\n"
                                       "  parallel {i, j} by [M, N]\n"
                                       "    y.at(i, j) = x.at(i, j) * w.at(j);\n"
                                       "}\n",
                                       {tensor(DType::f32, {64, 32}), tensor(DType::f32, {32}), tensor(DType::f32, {64, 32})});
  EXPECT_FALSE(contains(broadcast.ir, "elements per thread")) << broadcast.ir;
  compile_ptx(transpose);
  compile_ptx(broadcast);
}

// The row reductions compile for every kind, element type and the row
// lengths at both ends, their row chunks loaded as 16-byte vectors.
TEST(RowNormSource, CompilesWithVectorLoads) {
  for (row_norm::Kind kind : {row_norm::Kind::softmax, row_norm::Kind::rmsnorm, row_norm::Kind::layernorm})
    for (const char* element : {"f16", "bf16"})
      for (std::int64_t hidden : {512, 16384}) {
        SCOPED_TRACE(std::string(row_norm::name(kind)) + " " + element + " " + std::to_string(hidden));
        const DType t = test::dtype_of(element);
        std::vector<abi::ArgSignature> args{tensor(t, {3, hidden})};
        if (kind != row_norm::Kind::softmax) args.push_back(tensor(t, {hidden}));
        if (kind == row_norm::Kind::layernorm) args.push_back(tensor(t, {hidden}));
        args.push_back(tensor(t, {3, hidden}));
        GeneratedKernel k = generate(row_norm::source(kind, element, hidden), args);
        EXPECT_EQ(k.launch.block[0],
                  static_cast<unsigned>(row_norm::threads_per_row(kind, hidden) * row_norm::rows_per_block(kind, hidden)));
        EXPECT_TRUE(k.warnings.empty());
        const std::string ptx = compile_ptx(k);
        EXPECT_GE(vector_accesses(ptx, "ld"), 2u) << ptx;  // the row's two chunks
        EXPECT_GE(vector_accesses(ptx, "st"), 1u) << ptx;
        EXPECT_GE(count(ptx, "shfl.sync.bfly"), 5u) << ptx;
      }
}

// Softmax and RMSNorm: two chunks a thread (softmax: eight at rows of 16384). LayerNorm: at most 256 threads
// a block (several blocks an SM at long rows), whole warps, the row covered.
TEST(RowNormSource, ThreadsAndChunksPerRow) {
  using row_norm::Kind;
  EXPECT_EQ(row_norm::threads_per_row(Kind::softmax, 16384), 256);  // 64 elements a thread at the longest rows
  EXPECT_EQ(row_norm::threads_per_row(Kind::rmsnorm, 4096), 256);
  EXPECT_EQ(row_norm::chunks_per_thread(Kind::layernorm, 4096), 2);
  EXPECT_EQ(row_norm::chunks_per_thread(Kind::layernorm, 5120), 4);
  EXPECT_EQ(row_norm::chunks_per_thread(Kind::layernorm, 14336), 7);
  EXPECT_EQ(row_norm::chunks_per_thread(Kind::layernorm, 16384), 8);
  EXPECT_EQ(row_norm::chunks_per_thread(Kind::layernorm, 8704), 17);  // 34 = 2 x 17 chunks a lane: 2 warps
  // Several rows a block where a row's threads are few (measured: softmax [32768, 1024]).
  EXPECT_EQ(row_norm::rows_per_block(Kind::softmax, 1024), 4);
  EXPECT_EQ(row_norm::rows_per_block(Kind::rmsnorm, 512), 4);
  EXPECT_EQ(row_norm::rows_per_block(Kind::softmax, 2048), 1);
  EXPECT_EQ(row_norm::rows_per_block(Kind::layernorm, 1024), 1);
  for (long long hidden = 512; hidden <= 16384; hidden += 512) {
    const long long threads = row_norm::threads_per_row(Kind::layernorm, hidden);
    EXPECT_LE(threads, 256) << hidden;
    EXPECT_EQ(threads % 32, 0) << hidden;
    EXPECT_EQ(threads * 8 * row_norm::chunks_per_thread(Kind::layernorm, hidden), hidden) << hidden;
  }
}

// LayerNorm reduces (mean, squared deviations) in one block reduction: one
// barrier, two shuffles a butterfly step.
TEST(RowNormSource, LayerNormReducesOnce) {
  const std::string text = row_norm::source(row_norm::Kind::layernorm, "bf16", 16384);
  EXPECT_EQ(count(text, "sync.shared"), 1u) << text;
  EXPECT_EQ(count(text, "shfl.sync.bfly"), 10u) << text;
  EXPECT_NE(text.find("#define THREADS 256\n#define CHUNKS 8\n"), std::string::npos) << text;
}

TEST(RowNormSource, SupportedRowLengths) {
  EXPECT_TRUE(row_norm::supported(512));
  EXPECT_TRUE(row_norm::supported(16384));
  EXPECT_FALSE(row_norm::supported(256));
  EXPECT_FALSE(row_norm::supported(1000));
  EXPECT_FALSE(row_norm::supported(16896));
}

}  // namespace
}  // namespace croq::pipeline
