// Negative tests: each bad source produces exactly the listed diagnostics,
// asserting line, column, message and hint of every one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"

namespace croq::frontend {
namespace {

struct Expected {
  int line;
  int column;
  std::string message;
  std::string hint;
};

struct ErrorCase {
  std::string name;
  std::string source;
  std::vector<Expected> diagnostics;
};

// A kernel whose statement on line 2 is 200 parentheses deep.
const std::string kNestingTooDeep = "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = " +
                                    std::string(200, '(') + "1" + std::string(200, ')') + ";\n}\n";

// Most sources are one statement on line 2 of
//   __co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {
const std::vector<ErrorCase>& error_cases() {
  static const std::vector<ErrorCase> cases = {
    {"after_without_future",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy x => shared after;\n}\n",
     {{2, 29, "expected a future after `after`, found `;`", ""}}},
    {"arrow_outside_copy",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  x => y;\n}\n",
     {{2, 5, "unexpected `=>` outside a copy", "a copy reads `dma.copy src => dst;`"}}},
    {"asm_without_string",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  __asm__(nop);\n}\n",
     {{2, 11, "expected the assembly string, found `nop`", ""}}},
    {"assert_without_parentheses",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  assert n > 0;\n}\n",
     {{2, 10, "expected `(` after `assert`, found `n`", ""}}},
    {"assignment_without_value",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = ;\n}\n",
     {{2, 7, "expected a value after `=`, found `;`", ""}}},
    {"bad_swizzle_value",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy.swiz<100> x => shared;\n}\n",
     {{2, 17, "bad template argument of `.swiz`: 100 is not a swizzle; expected 0, 1, 2, 3, 32, 64 or 128", ""}}},
    {"c_for_loop",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  for (int i = 0; i < 4; ++i) { }\n}\n",
     {{2, 3, "`for` loops are not Croqtile; expected a statement, found `for`", "use `foreach i in [N]` for a sequential loop"}}},
    {"call_without_arguments",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  call f;\n}\n",
     {{2, 9, "expected `(` after `call f`, found `;`", ""}}},
    {"call_without_name",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  call ;\n}\n",
     {{2, 8, "expected a function name after `call`, found `;`", ""}}},
    {"conditional_without_colon",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = n ? 1;\n}\n",
     {{2, 12, "expected `:` in the conditional expression, found `;`", ""}}},
    {"convert_without_type",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = __to<>(y);\n}\n",
     {{2, 12, "bad template argument of `__to`: expected a type, found `>`", ""}}},
    {"copy_inside_expression",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  y = 1 + dma.copy x => shared;\n}\n",
     {{2, 11, "`dma.` operations are statements, not values", "write the operation on its own line: `f = dma.copy src => dst;`"}}},
    {"declaration_without_name",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  shared f16 [64];\n}\n",
     {{2, 18, "expected a name to declare, found `;`", ""}}},
    {"define_without_name",
     "#define 3 4\n__co__ void k() { }\n",
     {{1, 9, "expected a name after `#define`, found `3`", ""}}},
    {"division_by_zero_in_if",
     "#if 1 / 0\n#endif\n__co__ void k() { }\n",
     {{1, 9, "division by zero in a constant expression", ""}}},
    {"dma_as_value_in_call",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = f(dma.copy x => shared);\n}\n",
     {{2, 9, "`dma.` operations are statements, not values", "write the operation on its own line: `f = dma.copy src => dst;`"}}},
    {"else_after_else",
     "#if 1\n#else\n#else\n#endif\n__co__ void k() { }\n",
     {{3, 2, "`#else` after `#else`", ""}}},
    {"else_without_if",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  else { }\n}\n",
     {{2, 3, "`else` without a matching `if`", "check the braces of the `if` before it"}}},
    {"empty_parentheses",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = ();\n}\n",
     {{2, 8, "expected an expression inside `()`, found `)`", ""}}},
    {"empty_swizzle_arguments",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy.swiz<> x => shared;\n}\n",
     {{2, 17, "expected a template argument of `.swiz`, found `>`", ""}}},
    {"endif_without_if",
     "#endif\n__co__ void k() { }\n",
     {{1, 2, "`#endif` without `#if`", "remove it, or add the matching `#if`"}}},
    {"equals_instead_of_arrow",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy x = shared;\n}\n",
     {{2, 14, "expected `=>` after the copy source, found `=`", "did you mean `=>`?"}}},
    {"foreach_by_instead_of_in",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  foreach i by [4] { }\n}\n",
     {{2, 13, "expected `in` after the foreach index, found `by`", "`foreach` takes `in`, `parallel` takes `by`"}}},
    {"foreach_number_as_index",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  foreach 3 in [4] { }\n}\n",
     {{2, 11, "expected a loop index name after `foreach`, found `3`", ""}}},
    {"foreach_unclosed_index_group",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  foreach {i, j in [4, 4] { }\n}\n",
     {{2, 17, "expected `}` to close the loop index group, found `in`", ""}}},
    {"foreach_without_body",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  foreach i in [4];\n}\n",
     {{2, 19, "expected the body of `foreach`, found `;`", ""}}},
    {"group_8_space_specifier",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  parallel p by 4 : group-8 { }\n}\n",
     {{2, 21, "unknown space specifier `group-8`; expected `block`, `thread`, `group`, `group-4` or `cluster`", "a warpgroup is `group-4`"}}},
    {"if_unclosed_condition",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  if (n > 0 { }\n}\n",
     {{2, 13, "expected `)` to close the `if` condition, found `{`", ""}}},
    {"if_without_parentheses",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  if n > 0 { }\n}\n",
     {{2, 6, "expected `(` after `if`, found `n`", "write the condition in parentheses: `if (cond)`"}}},
    {"incomplete_if_expression",
     "#if (1 +\n#endif\n__co__ void k() { }\n",
     {{1, 8, "expected a value, found end of line", ""}}},
    {"inthreads_bad_modifier",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  inthreads.sync (n == 0) { }\n}\n",
     {{2, 13, "expected `async` after `inthreads.`, found `sync`", ""}}},
    {"inthreads_without_parentheses",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  inthreads n == 0 { }\n}\n",
     {{2, 13, "expected `(` after `inthreads`, found `n`", "write the thread condition in parentheses: `inthreads (p == 0)`"}}},
    {"ituple_unclosed_rank",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  ituple<3 t = {1, 2, 3};\n}\n",
     {{2, 12, "expected `>` after the rank of `ituple`, found `t`", ""}}},
    {"member_without_name",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = x.;\n}\n",
     {{2, 9, "expected a member name after `.`, found `;`", "members are `.at`, `.chunkat`, `.subspan`, `.step`, `.view`, `.from`, `.span`, `.span_as`, `.data`, `.zfill`"}}},
    {"missing_arrow_before_buffer",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy x buf;\n}\n",
     {{2, 14, "expected `=>` after the copy source, found `buf`", "did you mean `=>`?"}}},
    {"missing_arrow_before_storage",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  f = dma.copy x shared;\n}\n",
     {{2, 18, "expected `=>` after the copy source, found `shared`", "did you mean `=> shared`?"}}},
    {"missing_closing_parenthesis",
     "__co__ void k(s32 [8] x { }\n",
     {{1, 25, "expected `,` or `)` after the parameter `x`, found `{`", ""}}},
    {"missing_destination",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy x => ;\n}\n",
     {{2, 17, "expected a destination after `=>`, found `;`", "name a buffer, or `shared` / `local` for a new one"}}},
    {"missing_function_name",
     "__co__ void (s32 [8] x) { }\n",
     {{1, 13, "expected the function name, found `(`", ""}}},
    {"missing_parameter_name",
     "__co__ void k(s32 [8]) { }\n",
     {{1, 22, "expected a parameter name, found `)`", ""}}},
    {"missing_return_type",
     "__co__ k(s32 [8] x) { }\n",
     {{1, 8, "expected the return type of `k`, found `(`", "write `void` when the function returns nothing"}}},
    {"missing_semicolon_after_copy",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy x => shared\n  wait f;\n}\n",
     {{3, 3, "expected `;` after the dma statement, found `wait`", "add `;` at the end of the previous line"}}},
    {"missing_source",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy;\n}\n",
     {{2, 11, "expected the copy source after `dma.copy`, found `;`", ""}}},
    {"misspelled_async",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy.asnyc x => shared;\n}\n",
     {{2, 12, "unknown copy modifier `.asnyc`", "did you mean `.async`?"}}},
    {"mma_bad_layout",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  mma.row.rwo c, a, b;\n}\n",
     {{2, 11, "expected `row` or `col` after `mma.row.`, found `rwo`", ""}}},
    {"mma_half_layout",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  mma.row c, a, b;\n}\n",
     {{2, 11, "expected `.` after `mma.row`, found `c`", "write `mma.row.col`, `mma.row.row`, ..."}}},
    {"mma_misspelled_load",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  a = mma.lod x;\n}\n",
     {{2, 11, "unknown mma operation `lod`; expected `fill`, `load`, `row.row`, `row.col`, `col.row`, `col.col`, `commit` or `store`", "did you mean `load`?"}}},
    {"nesting_too_deep",
     kNestingTooDeep,
     {{2, 166, "nesting is too deep (more than 160 levels)", ""}}},
    {"pad_argument_count",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.pad<{1, 1}, {1, 1}, 0> x => shared;\n}\n",
     {{2, 7, "`dma.pad` expects 4 template arguments (low, high, mid, value), found 3", ""}}},
    {"parallel_in_instead_of_by",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  parallel p in 4 { }\n}\n",
     {{2, 14, "expected `by` after the parallel index, found `in`", "`parallel` takes `by`, `foreach` takes `in`"}}},
    {"parallel_missing_by",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  parallel p 4 { }\n}\n",
     {{2, 14, "expected `by` after the parallel index, found `4`", ""}}},
    {"parallel_unclosed_index_group",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  parallel {p, q by [2, 2] { }\n}\n",
     {{2, 18, "expected `}` to close the parallel index group, found `by`", ""}}},
    {"parallel_without_body",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  parallel p by 4;\n}\n",
     {{2, 18, "expected the body of `parallel`, found `;`", ""}}},
    {"range_with_four_parts",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  foreach y(1:2:3:4) { }\n}\n",
     {{2, 18, "expected `)` to close the range, found `:`", ""}}},
    {"return_two_values",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  return x y;\n}\n",
     {{2, 12, "expected `;` after `return`, found `y`", ""}}},
    {"scalar_without_name",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  int = 5;\n}\n",
     {{2, 7, "expected a name to declare, found `=`", ""}}},
    {"stray_character",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = 1 @ 2;\n}\n",
     {{2, 9, "stray `@` in program", ""}}},
    {"stray_closing_brace",
     "__co__ void a() {\n  n = 1;\n}\n}\n",
     {{4, 1, "unmatched `}` at file scope", "remove it, or add the `{` it should close"}}},
    {"swap_one_future",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  swap(a);\n}\n",
     {{2, 9, "expected `,` between the two futures of `swap`, found `)`", ""}}},
    {"sync_without_scope",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  sync.;\n}\n",
     {{2, 8, "expected a scope after `sync.` (`shared`, `global`), found `;`", ""}}},
    {"thin_arrow",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy x -> shared;\n}\n",
     {{2, 14, "expected `=>` after the copy source, found `->`", "did you mean `=>`?"}}},
    {"transp_bad_argument",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.transp<1.5, 0> x => local;\n}\n",
     {{2, 14, "bad template argument of `transp`: expected a dimension index, found `1.5`", ""}}},
    {"transp_without_order",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.transp x => local;\n}\n",
     {{2, 7, "`dma.transp` expects the dimension order as template arguments", "for a 2-D transpose write `transp<1, 0>`"}}},
    {"trigger_after_nothing",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  trigger e after;\n}\n",
     {{2, 18, "expected a future after `after`, found `;`", ""}}},
    {"trigger_without_event",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  trigger;\n}\n",
     {{2, 10, "expected an event after `trigger`, found `;`", ""}}},
    {"two_swizzle_arguments",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy.swiz<1, 2> x => shared;\n}\n",
     {{2, 12, "`.swiz` expects one template argument, found 2", "write `.swiz<128>` (bytes) or `.swiz<3>` (mode)"}}},
    {"two_values",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = 1 2;\n}\n",
     {{2, 9, "expected `;` after the assignment, found `2`", ""}}},
    {"unclosed_array_size",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  shared f16 [64] buf[2;\n}\n",
     {{2, 24, "expected `]` after the array size, found `;`", ""}}},
    {"unclosed_attribute",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  [[schedule(k_tiles(1, 0))] mma.commit;\n}\n",
     {{2, 30, "expected `]` to close the attribute, found `mma`", ""}}},
    {"unclosed_body_at_end_of_file",
     "__co__ void k() {\n  parallel p by 4 {\n    n = 1;\n  }\n",
     {{5, 1, "expected `}`, found end of file", "the `{` at line 1, column 17 is never closed"}}},
    {"unclosed_body_before_next_function",
     "__co__ void a() {\n  n = 1;\n\n__co__ void b() { }\n",
     {{4, 1, "expected `}`, found `__co__`", "the `{` at line 1, column 17 is never closed"}}},
    {"unclosed_bracket",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  s = [1, 2;\n}\n",
     {{2, 12, "expected `]` to close the `[` at line 2, column 7, found `;`", ""}}},
    {"unclosed_call",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = cdiv(1, 2;\n}\n",
     {{2, 16, "expected `,` or `)` in the call arguments, found `;`", "the `(` at line 2, column 11 is not closed"}}},
    {"unclosed_element_count",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = |x.span;\n}\n",
     {{2, 14, "expected `|` to close the element count `|...|`, found `;`", ""}}},
    {"unclosed_parenthesis",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = (1 + 2;\n}\n",
     {{2, 13, "expected `)` to close the `(` at line 2, column 7, found `;`", ""}}},
    {"unclosed_shape",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  shared f16 [64, 64 buf;\n}\n",
     {{2, 22, "expected `,` or `]` in the shape, found `buf`", "the `[` at line 2, column 14 is not closed"}}},
    {"unclosed_template_arguments",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.copy.swiz<128 x => shared;\n}\n",
     {{2, 21, "expected `,` or `>` in the template arguments of `.swiz`, found `x`", "the `<` at line 2, column 16 is not closed"}}},
    {"unknown_dma_operation",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  dma.cpy x => shared;\n}\n",
     {{2, 7, "unknown dma operation `cpy`; expected `copy`, `transp`, `pad`, `load`, `store` or `any`", "did you mean `copy`?"}}},
    {"unknown_memory_specifier",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  shard f16 [64] buf;\n}\n",
     {{2, 3, "unknown memory specifier `shard`; expected `global`, `shared` or `local`", "did you mean `shared`?"}}},
    {"unknown_memory_specifier_global",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  globl f16 [64] buf;\n}\n",
     {{2, 3, "unknown memory specifier `globl`; expected `global`, `shared` or `local`", "did you mean `global`?"}}},
    {"unknown_memory_specifier_param",
     "__co__ void k(sharde f16 [M] x) { }\n",
     {{1, 15, "unknown memory specifier `sharde`; expected `global`, `shared` or `local`", "did you mean `shared`?"}}},
    {"unknown_mma_operation",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  mma.mul c, a, b;\n}\n",
     {{2, 7, "unknown mma operation `mul`; expected `fill`, `load`, `row.row`, `row.col`, `col.row`, `col.col`, `commit` or `store`", ""}}},
    {"unknown_space_specifier",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  parallel p by 4 : blok { }\n}\n",
     {{2, 21, "unknown space specifier `blok`; expected `block`, `thread`, `group`, `group-4` or `cluster`", "did you mean `block`?"}}},
    {"unknown_tma_operation",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  tma.move x => shared;\n}\n",
     {{2, 7, "unknown tma operation `move`; expected `copy`, `transp`, `pad`, `load`, `store` or `any`", ""}}},
    {"unterminated_comment",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  n = 1; /* no end\n}\n",
     {{2, 10, "unterminated comment: `/*` has no matching `*/`", "close the comment with `*/`"}, {4, 1, "expected `}`, found end of file", "the `{` at line 1, column 50 is never closed"}}},
    {"unterminated_if",
     "#if 1\n__co__ void k() { }\n",
     {{1, 2, "unterminated `#if`: no matching `#endif`", "add `#endif` at the end of the conditional block"}}},
    {"unterminated_string",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  assert(n > 0, \"oops);\n}\n",
     {{2, 17, "unterminated string literal", "close the string with `\"`"}}},
    {"wait_missing_comma",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  wait f g;\n}\n",
     {{2, 10, "expected `;` after `wait`, found `g`", ""}}},
    {"wait_without_future",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  wait;\n}\n",
     {{2, 7, "expected a future or event after `wait`, found `;`", ""}}},
    {"with_missing_in",
     "__co__ void k(f16 [M, K] x, f16 [M, K] y, int n) {\n  with i [4] { }\n}\n",
     {{2, 10, "expected `in` after the with index, found `[`", ""}}},
  };
  return cases;
}

class SyntaxErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SyntaxErrors, ReportsExactDiagnostics) {
  const ErrorCase& c = GetParam();
  std::vector<Diagnostic> actual;
  try {
    parse_program(c.source, {});
    FAIL() << "expected errors, the source parsed:\n" << c.source;
  } catch (const CompileError& e) {
    actual = e.diagnostics();
  }
  ASSERT_EQ(actual.size(), c.diagnostics.size()) << render_diagnostics(actual, c.source, c.name);
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("diagnostic " + std::to_string(i));
    EXPECT_EQ(actual[i].severity, Severity::error);
    EXPECT_EQ(actual[i].line, c.diagnostics[i].line);
    EXPECT_EQ(actual[i].column, c.diagnostics[i].column);
    EXPECT_EQ(actual[i].message, c.diagnostics[i].message);
    EXPECT_EQ(actual[i].hint, c.diagnostics[i].hint);
    EXPECT_GE(actual[i].length, 1);
  }
}

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

INSTANTIATE_TEST_SUITE_P(Frontend, SyntaxErrors, ::testing::ValuesIn(error_cases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST(SyntaxErrors, AtLeastSixtyCases) { EXPECT_GE(error_cases().size(), 60u); }

}  // namespace
}  // namespace croq::frontend
