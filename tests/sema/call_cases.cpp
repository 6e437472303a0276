// Rule cases of __co_device__ functions and their calls (check_call.cpp).
#include "sema_test_util.hpp"

namespace croq::sema::test {

namespace {

const char* kTwice = "__co_device__ s32 twice(s32 x) {\n  return x * 2;\n}\n";

// `statement` in a thread level over `a`, after kTwice: it stands on line 6.
std::string in_threads(const std::string& device, const std::string& statement) {
  return device + "__co__ void f(s32 [64] a) {\n  parallel p by 64 : thread {\n    " + statement + "\n  }\n}\n";
}

}  // namespace

std::vector<RuleCase> call_cases() {
  return {
      {"CoDeviceCallArity", "call-arity", in_threads(kTwice, "a.at(p) = call twice(1, 2);"), 6, "call twice",
       "`twice` takes 1 argument (x), got 2"},
      {"CoDeviceCallRecursion", "call-recursion",
       "__co_device__ s32 down(s32 x) {\n  mutable s32 v = call down(x);\n  return v;\n}\n"
       "__co__ void f(s32 [64] a) {\n  parallel p by 64 : thread {\n    a.at(p) = call down(1);\n  }\n}\n",
       2, "call down", "`down` calls itself (down -> down)",
       "a __co_device__ function is expanded where it is called; write the repetition as a loop"},
      {"CoDeviceCallNoValue", "call-no-value",
       in_threads("__co_device__ void touch(s32 [64] t) {\n  t.at(0) = 1;\n}\n", "a.at(p) = call touch(a);"), 6,
       "call touch", "`touch` returns `void`; `call touch` has no value",
       "call it as a statement: `call touch(...);`"},
      {"CoDeviceCallAfterAnd", "call-placement",
       in_threads(kTwice, "if (p > 3 && call twice(p) > 4) { a.at(p) = 1; }"), 6, "call twice",
       "`call twice` as a value in the right operand of `&&` or `||`: the call would run once, before the statement",
       "compute it first: `mutable s32 v = call twice(...);`, then use `v`"},
      {"CoDeviceEarlyReturn", "device-function-return",
       "__co_device__ s32 pick(s32 x) {\n  if (x > 0) {\n    return 1;\n  }\n  return 0;\n}\n"
       "__co__ void f(s32 [64] a) {\n  parallel p by 64 : thread {\n    a.at(p) = call pick(p);\n  }\n}\n",
       3, "return 1", "`return` before the end of the __co_device__ function `pick`",
       "a __co_device__ function returns once, as its last statement: keep the value in a `mutable` scalar and "
       "return it at the end"},
      {"CoDeviceParallelInside", "device-function-body",
       "__co_device__ void fill(s32 [64] t) {\n  parallel q by 64 : thread {\n    t.at(q) = 0;\n  }\n}\n"
       "__co__ void f(s32 [64] a) {\n  parallel p by 1 : block {\n    call fill(a);\n  }\n}\n",
       2, "parallel q", "a parallel statement inside the __co_device__ function `fill`",
       "a __co_device__ function runs where it is called, by the threads that call it; put the parallel statement "
       "around the call"},
      // Checked per value of `p` as a trial (no facts kept): the call is refused, not half recorded.
      {"CoDeviceCallInAnInthreadsCondition", "inthreads-condition",
       "__co_device__ s32 one() {\n  return 1;\n}\n__co__ void f(s32 [64] a) {\n  parallel b by 1 : block {\n"
       "    parallel p by 2 : group-4 {\n      inthreads.async (call one() == p) {\n        a.at(0) = 1;\n      }\n"
       "    }\n  }\n}\n",
       7, "call one", "the inthreads.async condition must depend only on `p` (it selects whole thread groups)"},
      {"CoDeviceTensorOfOtherElements", "call-argument",
       in_threads("__co_device__ s32 first(f32 [N] v) {\n  return 0;\n}\n", "a.at(p) = call first(a);"), 6, "a);",
       "argument 1 of `call first` has s32 elements (`a`); parameter `v` (`f32 [N]`) takes f32"},
      {"CoDeviceDimsDisagree", "call-argument",
       "__co_device__ s32 first(s32 [N] v, s32 [N] w) {\n  return 0;\n}\n"
       "__co__ void f(s32 [64] a, s32 [32] b) {\n  parallel p by 64 : thread {\n    a.at(p) = call first(a, b);\n  }\n}\n",
       6, "b);", "`N` is 64 by an earlier argument of `call first`, but 32 in dim 0 (`b`)",
       "pass tensors whose extents agree on `N`"},
      // __bar_arrive / __bar_sync: PTX's named barriers (check_builtins.cpp).
      {"NamedBarrierAsAValue", "named-barrier", in_threads("", "a.at(p) = __bar_sync(1, 64);"), 3, "__bar_sync",
       "`__bar_sync` is a statement, not a value", "write it on its own: `__bar_sync(id, threads);`"},
      {"NamedBarrierOutsideParallel", "named-barrier",
       "__co__ void f(s32 [64] a) {\n  __bar_arrive(1, 64);\n  parallel p by 64 : thread {\n    a.at(p) = 1;\n  }\n}\n", 2,
       "__bar_arrive", "`__bar_arrive` outside a parallel statement",
       "a named barrier synchronizes threads of a block; use it inside a parallel body"},
      {"NamedBarrierArity", "named-barrier", in_threads("", "__bar_sync(1);"), 3, "__bar_sync",
       "`__bar_sync` takes 2 arguments (barrier id, thread count), got 1"},
      {"NamedBarrierFloatCount", "named-barrier", in_threads("", "__bar_sync(1, 64.0f);"), 3, "64.0f",
       "the thread count of `__bar_sync` is an integer, got `64.0f`"},
      {"NamedBarrierIdPastFifteen", "named-barrier", in_threads("", "__bar_arrive(16, 64);"), 3, "16",
       "a block has named barriers 0..15, got 16 (`16`)"},
      {"NamedBarrierCountOfPartWarps", "named-barrier", in_threads("", "__bar_arrive(1, 48);"), 3, "48",
       "the thread count of `__bar_arrive` is a positive multiple of 32 (whole warps), got 48"},
  };
}

}  // namespace croq::sema::test
