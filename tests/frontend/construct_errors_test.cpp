// Negative tests of the language's constructs (tests/frontend/CONSTRUCTS.md)
// that the parser reports: a malformed form of each, with the exact
// diagnostics (line, column, message, hint).
#include <string>
#include <vector>

#include "frontend/error_cases.hpp"

namespace croq::frontend {
namespace {

using testing::ErrorCase;

// Most sources are one statement on line 2 of this kernel.
const std::string kHead = "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n";
std::string body(const std::string& statement) { return kHead + statement + "\n}\n"; }

const std::vector<ErrorCase>& construct_error_cases() {
  static const std::vector<ErrorCase> cases = {
    // frag accumulators start filled
    {"frag_accumulators_without_a_value", body("  frag mc[2];"),
     {{2, 13, "expected `{` and the initial value after `frag mc`, found `;`",
       "accumulators start filled: `frag mc {0.0f};`"}}},
    {"frag_accumulator_of_an_unknown_type", body("  frag.big mc {0};"),
     {{2, 8, "expected the element type of the accumulators after `frag.`, found `big`",
       "write `frag.f32 mc {0.0f};`, or `frag mc {0.0f};` for the default type"}}},
    {"frag_value_not_closed", body("  frag mc {0.0f;"),
     {{2, 16, "expected `}` after the initial value of `mc`, found `;`", ""}}},
    // arrays with several dims
    {"second_array_size_not_closed", body("  shared f16 [64] buf[2][3;"),
     {{2, 27, "expected `]` after the array size, found `;`", ""}}},
    // C's array parameters are not Croqtile's
    {"c_array_parameter", "__co__ int foo(f32 d[]) { }\n",
     {{1, 21, "a parameter's shape comes before its name, not after `d`", "write `f32 [N] d`; the call gives N"}}},
    // a call's value names its function
    {"call_value_without_a_name", body("  n = call ;"),
     {{2, 12, "expected a function name after `call`, found `;`", "a call's value reads `x = call f(args);`"}}},
    // `parallel by N;`: the count is not optional
    {"parallel_by_without_a_count", body("  parallel by ;"),
     {{2, 15, "expected the count after `by`, found `;`", "write `parallel p by 4`, or a shape `by [2, 4]`"}}},
    // __cok__ blocks are closed
    {"cok_block_not_closed", "__cok__ {\n  int x;\n",
     {{3, 1, "expected `}`, found end of file", "the `{` at line 1, column 9 is never closed"}}},
    // __device__ code is kept verbatim up to its closing brace
    {"device_function_not_closed", "__device__ float scale(float v) {\n  return v;\n__co__ void k() { }\n",
     {{3, 1, "expected `}`, found `__co__`", "the `{` at line 1, column 33 is never closed"}}},
    // template headers list parameters
    {"template_parameters_without_a_comma", "template <typename T int N>\n__co__ void k(T [N] x) { }\n",
     {{1, 22, "expected `,` or `>` in the template parameter list, found `int`", ""}}},
    // __co_device__ functions are named
    {"co_device_function_without_a_name", "__co_device__ void (f32 [16] x) { }\n",
     {{1, 20, "expected the function name, found `(`", ""}}},
    // sub-byte element types take a rank or a shape after `mdspan`
    {"sub_byte_mdspan_without_rank", body("  u4 mdspan z;"),
     {{2, 13, "expected `<` or `[` after `u4 mdspan`, found `z`",
       "write the rank, `u4 mdspan<2>`, or the shape, `u4 mdspan[M, N]`"}}},
    // compile-time prints take parentheses
    {"println_without_parentheses", body("  println! \"x\";"),
     {{2, 12, "expected `(` after `println!`, found `\"x\"`", ""}}},
    // fences name their scope
    {"fence_without_a_scope", body("  sync.fence;"),
     {{2, 13, "expected `:` and a level after `sync.fence`, found `;`", "write `sync.fence : block` (or `: group`, `: thread`)"}}},
  };
  return cases;
}

class ConstructErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConstructErrors, ReportsExactDiagnostics) { testing::expect_exact_diagnostics(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Frontend, ConstructErrors, ::testing::ValuesIn(construct_error_cases()),
                         testing::error_case_name);

}  // namespace
}  // namespace croq::frontend
