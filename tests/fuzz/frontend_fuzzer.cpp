// libFuzzer target: arbitrary bytes through the lexer, the preprocessor, the
// parser and the semantic checker (with and without a target arch). Any
// crash, hang, sanitizer report or exception other than croq::CompileError
// is a bug. See tests/fuzz/README.md for how to run it.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "sema/sema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  croq::CompileOptions options;
  options.source_name = "fuzz.co";
  // The first byte, when odd, adds option defines so the override path runs too.
  if (size > 0 && (data[0] & 1)) {
    options.defines["M"] = std::int64_t{64};
    options.defines["HALF"] = 0.5;
    options.defines["NEG"] = std::int64_t{-3};
    options.defines["LOWEST"] = INT64_MIN;
  }
  // When set, values the preprocessor must refuse (with an error, not a crash).
  if (size > 0 && (data[0] & 2)) {
    options.defines["NOT_A_NUMBER"] = std::numeric_limits<double>::quiet_NaN();
    options.defines["bad name"] = std::int64_t{1};
  }
  try {
    auto program = croq::frontend::parse_program(source, options);
    (void)croq::frontend::print_ast(*program);
    try {
      (void)croq::frontend::select_entry(*program, options, program->source);
    } catch (const croq::CompileError&) {
    }
    croq::sema::Options checks;
    if (size > 0 && (data[0] & 2)) {  // sm_80: the arch rules too
      checks.target = croq::target::Target{};
      checks.target->arch = "sm_80";
      checks.target->sm = 80;
      checks.target->suffix = 0;
    }
    try {
      (void)croq::sema::check(*program, {}, checks);
    } catch (const croq::CompileError& e) {
      (void)e.to_json();
    }
  } catch (const croq::CompileError& e) {
    (void)croq::render_diagnostics(e.diagnostics(), e.source(), e.source_name());
  }
  return 0;
}
