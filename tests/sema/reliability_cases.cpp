// Rule cases of issue 30's "wrong or unchecked results" and "messages":
// string escapes checked before any call, names the generated code owns,
// tile extents, and shared memory against the target.
#include "sema_test_util.hpp"

namespace croq::sema::test {

namespace {

// A program of `count` kernels (top-level parallel statements).
std::string kernels(int count) {
  std::string body;
  for (int k = 0; k < count; ++k) body += "  parallel i by 8\n    a.at(i, 0) = 1;\n";
  return fn(body);
}

}  // namespace

std::vector<RuleCase> reliability_cases() {
  const std::string hint = "libcroqjit takes C's escapes: \\n \\t \\r \\\\ \\\" \\' \\? \\a \\b \\f \\v, \\ooo and \\x00 to \\xff";
  const std::string print = "  parallel i by 8 : thread\n    println(";
  return {
      {"StringEscapeUniversalCharacterName", "string-escape", fn(print + "\"caf\\u00e9\");\n"), 3, "\"caf",
       "the string `\"caf\\u00e9\"` has the universal character name `\\u00e9`, which libcroqjit does not take in "
       "strings (write the character itself)",
       hint},
      {"StringEscapeGnuEscape", "string-escape", fn(print + "\"\\e[0m\");\n"), 3, "\"\\e",
       "the string `\"\\e[0m\"` has the unknown escape `\\e` (a GNU extension: write \\x1b)", hint},
      {"StringEscapeUnknown", "string-escape", fn("  assert(n > 0, \"bad \\q\");\n"), 2, "\"bad",
       "the string `\"bad \\q\"` has the unknown escape `\\q`", hint},
      {"StringEscapeHexTooLong", "string-escape", fn(print + "\"\\x100\");\n"), 3, "\"\\x",
       "the string `\"\\x100\"` has the hex escape `\\x100`, above \\xff", hint},
      {"DeviceNameWithTheGeneratedPrefix", "device-reserved-name",
       "__device__ int croq_add(int v) { return v + 1; }\n" + fn("  parallel i by 8\n    a.at(i, 0) = 1;\n"), 1,
       "croq_add",
       "`croq_add` in __device__ code: names starting with `croq_` are reserved for the code libcroqjit generates "
       "(the kernel of `add` would be `croq_add`)",
       "rename it (for example `my_add`)"},
      {"NegativeSubspanExtent", "extent-positive", blk("    t = dma.copy a.subspan(-4, 8).at(0, 0) => shared;\n"), 3,
       "-4", "`.subspan` takes tiles of extent -4 in dimension 0; a tile extent must be positive"},
      {"SharedTilesPastTheTarget", "shared-memory-limit",
       blk("    shared f32 [64, 256] first;\n    shared f32 [64, 256] second;\n"), 4, "second",
       "`second` (f32, 65536 bytes) brings the shared memory this kernel declares to 131072 bytes; sm_86 allows "
       "101376 per block",
       "use smaller tiles, or fewer stages", "sm_86"},
      {"KernelsPastTheLimit", "kernel-count", kernels(129), 2 + 2 * 128, "parallel",
       "`f` has more than 128 top-level parallel statements (kernels), the limit; this is kernel 129",
       "each kernel is an NVRTC compile at the first call: merge kernels, or split the program into functions"},
      {"InlineAssemblyPastTheLimit", "asm-size",
       fn("  parallel p by 8 : thread\n    __asm__ volatile(\"" + std::string(16385, ' ') + "mov.u32 %0, 1;\" : \"=r\"(a.at(p, 0)));\n"),
       3, "__asm__",
       "the inline assembly of `f` reaches 16399 bytes here, more than 16384 (16 KiB), the limit",
       "NVRTC's time grows with the square of a kernel's PTX instructions: move the loop into the kernel, or split the "
       "function"},
  };
}

}  // namespace croq::sema::test
