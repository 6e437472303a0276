// Barriers, fences, atomics and math builtins through the whole pipeline:
// the CUDA they become, and that it compiles with NVRTC for sm_90a.
#include <gtest/gtest.h>

#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::generate;
using test::tensor;

GeneratedKernel compiled(const std::string& source, const std::vector<ArgSignature>& args) {
  GeneratedKernel k = generate(source, args);
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "builtins.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty()) << k.cuda_source;
  return k;
}

bool has(const GeneratedKernel& k, const std::string& text) { return k.cuda_source.find(text) != std::string::npos; }

// ---- barriers and fences ---------------------------------------------------

TEST(SyncCodegen, EachBarrierLevelWaitsForItsThreads) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [64] a, s32 [64] b) {
  parallel p by 1 : block {
    shared s32 [64] s;
    parallel w by 2 : group {
      parallel l by 32 : thread {
        s.at(w # l) = a.at(w # l);
        sync.barrier : thread;
        sync.barrier : group;
        b.at(w # l) = s.at(w * 32 + (l + 1) % 32);
      }
    }
    sync.barrier : block;
  }
}
)",
                               {tensor(DType::s32, {64}), tensor(DType::s32, {64})});
  EXPECT_TRUE(has(k, "__syncwarp(__activemask());")) << k.cuda_source;
  EXPECT_TRUE(has(k, "__syncwarp();")) << k.cuda_source;
  EXPECT_TRUE(has(k, "__syncthreads();")) << k.cuda_source;
}

// Shared memory written element by element (one thread at block scope)
// and then read by other threads: a block barrier comes between, once.
std::size_t after(const GeneratedKernel& k, const std::string& first, const std::string& then) {
  std::size_t a = k.cuda_source.find(first);
  return a == std::string::npos ? std::string::npos : k.cuda_source.find(then, a);
}

TEST(SyncCodegen, BlockScopeSharedWritesAreFencedBeforeAThreadLevelReadsThem) {
  GeneratedKernel k = compiled(R"(__co__ void f(f32 [128] a, f32 [128] b) {
  parallel p by 1 : block {
    shared f32 [128] s;
    foreach i in 128 { s.at(i) = a.at(i) * 2.0; }
    parallel t by 128 : thread {
      b.at(t) = s.at(127 - t);
    }
  }
}
)",
                               {tensor(DType::f32, {128}), tensor(DType::f32, {128})});
  const std::size_t write = k.cuda_source.find("* 2.0)");
  const std::size_t barrier = after(k, "* 2.0)", "__syncthreads();");
  const std::size_t read = k.cuda_source.find("arg_b[");
  ASSERT_NE(write, std::string::npos) << k.cuda_source;
  ASSERT_NE(barrier, std::string::npos) << k.cuda_source;
  EXPECT_LT(barrier, read) << k.cuda_source;
}

TEST(SyncCodegen, BlockScopeSharedWritesAreFencedBeforeABlockScopeReadOrCopy) {
  GeneratedKernel k = compiled(R"(__co__ void f(f32 [64] a, f32 [64] b, f32 [64] c) {
  parallel p by 1 : block {
    shared f32 [64] s;
    parallel t by 64 : thread { s.at(t) = a.at(t) + 1.0; }
    foreach i in 64 { b.at(i) = s.at(63 - i); }
    dma.copy s => c;
  }
}
)",
                               {tensor(DType::f32, {64}), tensor(DType::f32, {64}), tensor(DType::f32, {64})});
  // The thread level's stores, one barrier before the loop (not one per
  // pass), the block-scope reads, a barrier, the copy.
  const std::size_t barrier = after(k, "+ 1.0)", "__syncthreads();");
  ASSERT_NE(barrier, std::string::npos) << k.cuda_source;
  EXPECT_LT(barrier, k.cuda_source.find("for (int i_")) << k.cuda_source;
  const std::size_t copy_barrier = after(k, "arg_b[", "__syncthreads();");
  ASSERT_NE(copy_barrier, std::string::npos) << k.cuda_source;
  EXPECT_LT(copy_barrier, k.cuda_source.find("arg_c[")) << k.cuda_source;
}

TEST(SyncCodegen, NoBarrierWhenSharedMemoryWasNotWrittenElementwise) {
  GeneratedKernel k = compiled(R"(__co__ void f(f32 [64] a, f32 [64] b) {
  parallel p by 1 : block {
    shared f32 [64] s;
    parallel t by 64 : thread { b.at(t) = a.at(t); }
  }
}
)",
                               {tensor(DType::f32, {64}), tensor(DType::f32, {64})});
  EXPECT_FALSE(has(k, "__syncthreads();")) << k.cuda_source;
}

TEST(SyncCodegen, FencesReachTheBlockOrTheDevice) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [64] a) {
  parallel p by 64 : thread {
    a.at(p) = 1;
    sync.fence : thread;
    sync.fence : group-4<shared>;
    a.at(p) = 2;
    sync.fence : block<global>;
  }
}
)",
                               {tensor(DType::s32, {64})});
  std::size_t block_fence = k.cuda_source.find("__threadfence_block();");
  ASSERT_NE(block_fence, std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("__threadfence_block();", block_fence + 1), std::string::npos) << k.cuda_source;
  EXPECT_TRUE(has(k, "__threadfence();")) << k.cuda_source;
}

// ---- atomics ------------------------------------------------------------------

struct AtomicCase {
  std::string name, dtype, call;
  DType type;
  std::string expected;  // in the CUDA
};

class AtomicCodegen : public ::testing::TestWithParam<AtomicCase> {};

// Each atomic on each element type CUDA has it for compiles; the value is
// converted to the element type.
TEST_P(AtomicCodegen, CompilesForTheElementType) {
  const AtomicCase& c = GetParam();
  GeneratedKernel k = compiled("__co__ void f(" + c.dtype + " [256] a, " + c.dtype +
                                   " [16] h) {\n  parallel p by 256 : thread {\n    " + c.call + ";\n  }\n}\n",
                               {tensor(c.type, {256}), tensor(c.type, {16})});
  EXPECT_TRUE(has(k, c.expected)) << k.cuda_source;
}

INSTANTIATE_TEST_SUITE_P(
    Atomics, AtomicCodegen,
    ::testing::Values(
        AtomicCase{"AddS32", "s32", "__atomic_add(h.at(p % 16), a.at(p))", DType::s32, "atomicAdd(&arg_h["},
        AtomicCase{"AddF16", "f16", "__atomic_add(h.at(p % 16), a.at(p))", DType::f16, "atomicAdd(&arg_h["},
        AtomicCase{"AddF64", "f64", "__atomic_add(h.at(p % 16), 1)", DType::f64, "(double)(1))"},
        AtomicCase{"SubU32", "u32", "__atomic_sub(h.at(p % 16), 1)", DType::u32, "atomicSub(&arg_h["},
        AtomicCase{"ExchF32", "f32", "__atomic_exch(h.at(p % 16), a.at(p))", DType::f32, "atomicExch(&arg_h["},
        AtomicCase{"MinS64", "s64", "__atomic_min(h.at(p % 16), a.at(p))", DType::s64, "atomicMin(&arg_h["},
        AtomicCase{"MaxU64", "u64", "__atomic_max(h.at(p % 16), a.at(p))", DType::u64, "atomicMax(&arg_h["},
        AtomicCase{"XorS64", "s64", "__atomic_xor(h.at(p % 16), a.at(p))", DType::s64,
                   "((long long)atomicXor((unsigned long long*)&arg_h["},
        AtomicCase{"CasU16", "u16", "__atomic_cas(h.at(p % 16), 0, a.at(p))", DType::u16, "atomicCAS(&arg_h["}),
    [](const auto& info) { return info.param.name; });

// The old value is a declaration's or an assignment's value inside a thread
// level; an element index past the tensor skips the atomic.
TEST(AtomicCodegen, OldValueIsDeclaredAndGuardedAtTails) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [N] a, s32 [N] b) {
  parallel p by 1 : block {
    parallel t by 64 : thread {
      mutable s32 old = __atomic_exch(a.at(t), 5);
      b.at(t) = __atomic_add(a.at(t), old);
    }
  }
}
)",
                               {tensor(DType::s32, {50}), tensor(DType::s32, {50})});
  EXPECT_TRUE(has(k, "? atomicExch(&arg_a[")) << k.cuda_source;
  EXPECT_TRUE(has(k, "? atomicAdd(&arg_a[")) << k.cuda_source;
}

// At block scope an atomic statement runs once per block, not once per thread.
TEST(AtomicCodegen, BlockScopeStatementRunsInOneThread) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [8] count) {
  parallel p by 8 : block {
    parallel t by 32 : thread { }
    __atomic_add(count.at(0), 1);
  }
}
)",
                               {tensor(DType::s32, {8})});
  EXPECT_TRUE(has(k, "if ((threadIdx.x == 0)) {")) << k.cuda_source;
}

TEST(AtomicCodegen, ValueAtBlockScopeIsRefused) {
  try {
    generate(R"(__co__ void f(s32 [8] count, s32 [8] seen) {
  parallel p by 8 : block {
    parallel t by 32 : thread { }
    seen.at(p) = __atomic_add(count.at(0), 1);
  }
}
)",
             {tensor(DType::s32, {8}), tensor(DType::s32, {8})});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("the value of `__atomic_add(count.at(0), 1)` at block scope is not supported yet"),
              std::string::npos)
        << e.what();
  }
}

// ---- math builtins --------------------------------------------------------------

const char* kEveryMathBuiltin = R"(__co__ void f(T [64] x, T [64] y, T [64] out) {
  parallel p by 64 : thread {
    a = x.at(p);
    b = y.at(p);
    out.at(p) = __sqrt(a) + __rsqrt(a) + __exp(a) + __exp2f(a) + __expm1(a) + __log(a) + __log1p(a) +
                __sin(a) + __cos(a) + __tan(a) + __asin(a) + __acos(a) + __atan(a) + __sinh(a) + __cosh(a) +
                __tanh(a) + __ceil(a) + __floor(a) + __round(a) + __fabs(a) + __frcp_rn(a) + __sign(a) +
                __sigmoid(a) + __softplus(a) + __gelu(a) + __pow(a, b) + __atan2(a, b) + __max(a, b) +
                __min(a, b) + __fmaf(a, b, a) + __isfinite(a);
  }
}
)";

struct MathCase {
  std::string name;
  DType type;
  std::vector<std::string> expected;
  std::vector<std::string> absent = {};  // calls that must not appear
};

class MathCodegen : public ::testing::TestWithParam<MathCase> {};

// f32 calls CUDA's float functions, f64 its double ones; f16 and bf16
// compute through float.
TEST_P(MathCodegen, EveryBuiltinCompilesForTheElementType) {
  const MathCase& c = GetParam();
  std::string source = kEveryMathBuiltin;
  source.replace(source.find("T [64] x"), 1, dtype_name(c.type));
  source.replace(source.find("T [64] y"), 1, dtype_name(c.type));
  source.replace(source.find("T [64] out"), 1, dtype_name(c.type));
  GeneratedKernel k = compiled(source, {tensor(c.type, {64}), tensor(c.type, {64}), tensor(c.type, {64})});
  for (const std::string& e : c.expected) EXPECT_TRUE(has(k, e)) << e << "\n" << k.cuda_source;
  for (const std::string& e : c.absent) EXPECT_FALSE(has(k, e)) << e << "\n" << k.cuda_source;
}

INSTANTIATE_TEST_SUITE_P(
    Types, MathCodegen,
    ::testing::Values(MathCase{"F32", DType::f32, {"sqrtf(", "rsqrtf(", "croq_exp2_approx(", "__frcp_rn(", "fmaxf(", "fmaf("}},
                      // Every f64 builtin in double: no float function (gelu's tanh once was tanhf).
                      MathCase{"F64", DType::f64, {"sqrt(", "rsqrt(", "exp2(", "__drcp_rn(", "fmax(", "fma(", " tanh("},
                               {"tanhf(", "expf(", "log1pf(", "sqrtf(", "powf(", "__frcp_rn(", "croq_exp2_approx("}},
                      MathCase{"F16", DType::f16, {"sqrtf(", "fmaf("}},
                      MathCase{"Bf16", DType::bf16, {"sqrtf(", "fmaf("}}),
    [](const auto& info) { return info.param.name; });

// A half-precision element goes through float and the value comes back in
// its type (the first operand's).
TEST(MathCodegen, HalfElementsComputeInFloat) {
  GeneratedKernel k = compiled(R"(__co__ void f(f16 [64] x, bf16 [64] y, f16 [64] out) {
  parallel p by 64 : thread
    out.at(p) = __sqrt(x.at(p)) + __pow(x.at(p), y.at(p));
}
)",
                               {tensor(DType::f16, {64}), tensor(DType::bf16, {64}), tensor(DType::f16, {64})});
  EXPECT_TRUE(has(k, "(__half)(sqrtf((float)(arg_x[p_1])))")) << k.cuda_source;
  EXPECT_TRUE(has(k, "(__half)(powf((float)(arg_x[p_1]), (float)(arg_y[p_1])))")) << k.cuda_source;
}

TEST(MathCodegen, IntegerMaxStaysIntegerAndAlignFolds) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [64] x, s32 [64] out) {
  parallel p by __alignup(60, 16) : thread {
    out.at(p) = __max(x.at(p), 3) + __aligndown(x.at(p), 8);
  }
}
)",
                               {tensor(DType::s32, {64}), tensor(DType::s32, {64})});
  EXPECT_TRUE(has(k, "max(")) << k.cuda_source;
  EXPECT_FALSE(has(k, "fmaxf(")) << k.cuda_source;
  EXPECT_EQ(k.launch.block[0], 64u);
}

// ---- named shapes, ituples, with, print ------------------------------------------

// `sp : [...]`, `ituple t = {...}` and `sp(i)` are the constants they name:
// they size the grid, a shared tile, a thread level and a loop.
TEST(NamedValueCodegen, ShapesAndTuplesSizeTilesLevelsAndLoops) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [M, 64] lhs, s32 [M, 64] out) {
  sp : [4, 64];
  mdspan<2> whole : lhs.span;
  ituple<2> threads = {4, 16};
  parallel p by whole(0) / sp(0) : block {
    shared s32 [sp] buf;
    s = dma.copy lhs.subspan(sp(0), sp(1)).at(p, 0) => buf;
    parallel {i, j} by threads : thread {
      foreach k in [sp(1) / threads(1)]
        out.at(p # i, j # k) = buf.at(i, j # k) + whole(1) + |sp|;
    }
  }
}
)",
                               {tensor(DType::s32, {32, 64}), tensor(DType::s32, {32, 64})});
  EXPECT_EQ(k.launch.grid[0], 8u);
  EXPECT_EQ(k.launch.block[0], 64u);
  EXPECT_EQ(k.launch.shared_bytes, 4u * 64 * 4);
  EXPECT_TRUE(has(k, "for (int k_")) << k.cuda_source;
  EXPECT_TRUE(has(k, " + 64) + 256)")) << k.cuda_source;
}

// `with` binds indices (0 until walked); `foreach` over them nests loops,
// outer to inner left to right, a run-time bound included.
TEST(WithCodegen, ForeachWalksTheIndicesAWithBinds) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [8, 16] a, int n) {
  parallel p by 1 : block {
    with index = {x, y} in [8, 16], iv in [n] {
      a.at(x, y) = 7;
      foreach iv, index {
        a.at(x, y) += iv;
      }
    }
  }
}
)",
                               {tensor(DType::s32, {8, 16}), ArgSignature{false, DType::s32, {}, true}});
  const std::size_t outer = k.cuda_source.find("< arg_n; ++iv_");
  const std::size_t middle = k.cuda_source.find("< 8; ++x_");
  const std::size_t inner = k.cuda_source.find("< 16; ++y_");
  ASSERT_NE(outer, std::string::npos) << k.cuda_source;
  ASSERT_NE(middle, std::string::npos) << k.cuda_source;
  ASSERT_NE(inner, std::string::npos) << k.cuda_source;
  EXPECT_LT(outer, middle);
  EXPECT_LT(middle, inner);
  EXPECT_TRUE(has(k, "arg_a[0] = 7;")) << k.cuda_source;
}

// println: one printf whose format holds the user's text escaped, `%`
// doubled; one thread prints for a block, every thread at thread level.
TEST(PrintCodegen, PrintfOfTextNumbersAndTuples) {
  GeneratedKernel k = compiled(R"(__co__ void f(f32 [4] a, int n) {
  with idx in [2, n] {
    println("100% \"done\"\n", n, idx);
  }
  parallel p by 1 : block {
    parallel t by 4 : thread {
      print(t, " ", a.at(t) > 0.0f, " ", a.at(t) * 2.0f);
    }
  }
}
)",
                               {tensor(DType::f32, {4}), ArgSignature{false, DType::s32, {}, true}});
  EXPECT_TRUE(has(k, R"(if (((threadIdx.x == 0) && (blockIdx.x == 0))) printf("100%% \"done\"\012%lld{%lld, %lld}\012", (long long)(arg_n), (long long)(0), (long long)(0));)"))
      << k.cuda_source;
  EXPECT_TRUE(has(k, R"(printf("%lld %s %f", (long long)(t_)")) << k.cuda_source;
}

// ---- inline assembly -----------------------------------------------------------

// Outputs go through variables of the register type and are written back;
// inputs are converted to theirs; %[name] becomes the operand's number. The
// cubin build runs ptxas, so the PTX must be right too.
TEST(AsmCodegen, OperandsBindRegisterTypedVariables) {
  GeneratedKernel k = compiled(R"(__co__ void f(s32 [64] a, f32 [64] x, f64 [64] y, u16 [64] h, s64 [64] w, int n) {
  parallel p by 64 : thread {
    __asm__ volatile("add.s32 %[d], %[s], %2;" : [d] "=r"(a.at(p)) : [s] "r"(n), "n"(3) : "memory");
    __asm__("mul.f32 %0, %0, %1;" : "+f"(x.at(p)) : "f"(2.0f));
    __asm__("add.f64 %0, %0, %0;" : "+d"(y.at(p)));
    __asm__("add.u16 %0, %0, 1;" : "+h"(h.at(p)));
    __asm__("add.s64 %0, %0, %1;" : "+l"(w.at(p)) : "l"(n));
  }
}
)",
                               {tensor(DType::s32, {64}), tensor(DType::f32, {64}), tensor(DType::f64, {64}),
                                tensor(DType::u16, {64}), tensor(DType::s64, {64}), ArgSignature{false, DType::s32, {}, true}});
  EXPECT_TRUE(has(k, R"(asm volatile("add.s32 %0, %1, %2;" : "=r"(asm_out_)")) << k.cuda_source;
  EXPECT_TRUE(has(k, R"(: "r"((unsigned)(arg_n)), "n"(3) : "memory");)")) << k.cuda_source;
  EXPECT_TRUE(has(k, R"(: "+f"(asm_out_)")) << k.cuda_source;
  EXPECT_TRUE(has(k, R"(: "+d"(asm_out_)")) << k.cuda_source;
  EXPECT_TRUE(has(k, "unsigned short asm_out_")) << k.cuda_source;
  EXPECT_TRUE(has(k, "unsigned long long asm_out_")) << k.cuda_source;
  EXPECT_TRUE(has(k, "arg_a[p_1] = (int)(asm_out_")) << k.cuda_source;
}

// The template is the user's text: quotes, backslashes, newlines and
// would-be code stay inside the string literal, and reach the PTX as written.
TEST(AsmCodegen, TemplateTextCannotLeaveItsStringLiteral) {
  const std::string escape_attempt =
      R"(mov.u32 %0, 7; // \"); } extern \"C\" __global__ void escaped() { asm(\"\n\t// ??/ \\ */;)";
  GeneratedKernel k = generate("__co__ void f(s32 [4] a) {\n  parallel p by 4 : thread {\n    __asm__(\"" +
                                   escape_attempt + "\" : \"=r\"(a.at(p)));\n  }\n}\n",
                               {tensor(DType::s32, {4})});
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "asm.cu", k.entry, {"compute_90a", false, {}});
  EXPECT_EQ(out.ptx.find(".entry escaped"), std::string::npos) << out.ptx;
  EXPECT_NE(out.ptx.find("); } extern \"C\" __global__ void escaped() { asm(\"\n\t// ??/ \\ */;"), std::string::npos)
      << out.ptx;
}

}  // namespace
}  // namespace croq::pipeline
