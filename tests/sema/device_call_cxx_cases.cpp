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
      // Valid Croqtile (Croqtile passes the registers' address); a limitation here.
      {"DeviceCallOfAnAccumulator", "unsupported-call", touch + wg("      call touch(mc, n);\n"), 8, "mc, n",
       "argument 1 of `call touch` is an mma accumulator (`mc`); passing it to a __device__ function is not "
       "supported yet by libcroqjit",
       "store it into a shared or local tile without `.swiz` and pass that"},
      {"DeviceCallTemplateArgumentOfNothing", "call-argument",
       "template <int N> __device__ void touch(float* p) { }\n" + blk("    call touch<Q>(a);\n"), 4, "Q",
       "template argument `Q` of `call touch` is neither a type nor a value",
       "pass an element type (f32, s32, ...), a C++ scalar type (int, float, ...) or an integer constant"},
  };
}

}  // namespace croq::sema::test
