// Rule cases of `call f(args)` of C++ functions the source defines
// (__device__, __cok__): what may be called, and what the arguments pass.
#include "sema_test_util.hpp"

namespace croq::sema::test {

std::vector<RuleCase> device_function_call_cases() {
  // One line of C++ before the kernel: the kernel's lines move down by one.
  const std::string touch = "__device__ void touch(float* p, int n) { }\n";
  const std::string hint_defined = "define it in the source, with `__device__`, or write it in Croqtile as a __co_device__ function";
  return {
      {"CallOfAFunctionTheSourceDoesNotDefine", "device-function-unknown", blk("    call helper(n);\n"), 3, "call",
       "`helper` is not a __device__ function of this source: libcroqjit calls the functions a source defines "
       "with `__device__` (in a `__cok__ { }` block too)",
       hint_defined},
      // Its value, as `call f(...)` gives it to a declaration, is the same limitation.
      {"ValueOfAFunctionTheSourceDoesNotDefine", "device-function-unknown",
       blk("    mutable float v = call helper(n, bm > 0 ? 1 : 2);\n"), 3, "call",
       "`helper` is not a __device__ function of this source: libcroqjit calls the functions a source defines "
       "with `__device__` (in a `__cok__ { }` block too)",
       hint_defined},
      {"ValueOfAnUnknownFunctionOutsideParallel", "call-outside-parallel", fn("  mutable int v = call helper(n);\n"),
       2, "call", "`call helper` outside a parallel statement",
       "a kernel function runs on the device; call it inside a parallel body"},
      // A function of a __cok__ block without `__device__` is a host function for CUDA.
      {"CallOfAHostFunctionOfACokBlock", "device-function-unknown",
       "__cok__ { void helper(int n) { } }\n" + blk("    call helper(n);\n"), 4, "call",
       "`helper` is not a __device__ function of this source: libcroqjit calls the functions a source defines "
       "with `__device__` (in a `__cok__ { }` block too)",
       hint_defined},
      // A declaration without a body names a function of some other file.
      {"CallOfADeclaredOnlyFunction", "device-function-unknown",
       "__device__ void helper(int n);\n" + blk("    call helper(n);\n"), 4, "call",
       "`helper` is not a __device__ function of this source: libcroqjit calls the functions a source defines "
       "with `__device__` (in a `__cok__ { }` block too)",
       hint_defined},
      {"DeviceCallOutsideParallel", "call-outside-parallel", touch + fn("  call touch(a, n);\n"), 3, "call",
       "`call touch` outside a parallel statement", "a __device__ function runs on the device; call it inside a parallel body"},
      {"DeviceCallOfAFuture", "call-argument",
       touch + blk("    f = dma.copy a => shared;\n    call touch(f, n);\n"), 5, "f, n",
       "argument 1 of `call touch` is a future (`f`); a __device__ function takes numbers and tensors",
       "pass the future's tile: `f.data`"},
      {"DeviceCallOfAShape", "call-argument", touch + blk("    call touch(a, a.span);\n"), 4, "a.^span",
       "argument 2 of `call touch` is a shape (`a.span`); a __device__ function takes numbers and tensors",
       "pass its values one by one, as numbers"},
      {"DeviceCallOfVoidAsAValue", "call-no-value", touch + blk("    a.at(0, 0) = call touch(a, n);\n"), 4, "call",
       "`touch` returns `void`; `call touch` has no value", "call it as a statement: `call touch(...);`"},
      {"DeviceCallReturningAPointer", "unsupported-call",
       "__device__ float* where(int n) { return 0; }\n" + blk("    a.at(0, 0) = where(n);\n"), 4, "where",
       "the value of `call where` is not supported yet by libcroqjit",
       "return int, unsigned, float, double or half, or call it as a statement"},
      // A warpgroup's f32 accumulator passes by reference; others are a limitation.
      {"DeviceCallOfAnF16Accumulator", "unsupported-call",
       touch + blk("    parallel p by 1 : group-4 {\n      mc = mma.fill.f16 0.0f;\n      call touch(mc, n);\n    }\n"), 6,
       "mc, n",
       "argument 1 of `call touch` is an mma accumulator of f16 (`mc`); passing it to a __device__ function is not "
       "supported yet by libcroqjit (a warpgroup's f32 accumulator passes)",
       "store it into a shared or local tile and pass that"},
      // Intrinsic passthrough: device code, called as a statement.
      {"IntrinsicOutsideParallel", "call-outside-parallel", fn("  #pragma croq intrinsic prefix hw_\n  hw_go(n);\n"), 3,
       "hw_go", "intrinsic `hw_go(...)` outside a parallel statement",
       "an intrinsic is device code: call it inside a parallel body"},
      {"ValueOfAnIntrinsic", "unsupported-call",
       blk("    #pragma croq intrinsic namespace arch\n    a.at(0, 0) = arch::lane(n);\n"), 4, "arch::lane",
       "the value of intrinsic `arch::lane(...)` is not supported yet by libcroqjit: its C++ return type is unknown",
       "call it as a statement: `arch::lane(...);`"},
      {"IntrinsicOfAFuture", "call-argument",
       blk("    #pragma croq intrinsic prefix hw_\n    f = dma.copy a => shared;\n    hw_go(f);\n"), 5, "f)",
       "argument 1 of intrinsic `hw_go(...)` is a future (`f`); a __device__ function takes numbers and tensors",
       "pass the future's tile: `f.data`"},
      {"BareCallOfAnUnknownFunction", "call-keyword", blk("    helper(n);\n"), 3, "helper",
       "`helper(...)` is neither a builtin, a function of this source nor a registered intrinsic",
       "call a C++ function with `call`: `call helper(...);`, or register its name: `#pragma croq intrinsic prefix "
       "helper`"},
      {"CallOfACoFunction", "call-co-function", "__co__ void g(s32 [8] x) { }\n" + blk("    call g(a);\n"), 4, "call",
       "`g` is a __co__ function; Croqtile functions cannot call other __co__ functions",
       "call a __co_device__ function, or move the shared work into one: `__co_device__ void g(...)`"},
      {"IntrinsicNamespaceCroq", "intrinsic-reserved", "#pragma croq intrinsic namespace croq\n" + blk("    a.at(0, 0) = 1;\n"),
       1, "namespace ^croq",
       "`#pragma croq intrinsic namespace croq` registers names of the namespace `croq`, which Croqtile reserves for "
       "its builtins",
       "register the namespace or prefix of the intrinsics themselves (`arch`, `hw_`)"},
      {"DeviceCallTemplateArgumentOfNothing", "call-argument",
       "template <int N> __device__ void touch(float* p) { }\n" + blk("    call touch<Q>(a);\n"), 4, "Q",
       "template argument `Q` of `call touch` is neither a type nor a value",
       "pass an element type (f32, s32, ...), a C++ scalar type (int, float, ...) or an integer constant"},
  };
}

}  // namespace croq::sema::test
