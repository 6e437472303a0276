// Links against the installed package and uses the public API only.
#include <croq/croq.hpp>

#include <iostream>

int main() {
  auto lhs = croq::make_spandata<croq::s32>(4, 8);
  lhs.fill_random(-10, 10);
  croq::TensorView v = lhs.view();
  if (v.shape[1] != 8 || v.dtype != croq::DType::s32) return 1;
  try {
    croq::compile("__co__ void broken( {", croq::CompileOptions{});
    std::cerr << "expected a CompileError\n";
    return 1;
  } catch (const croq::CompileError& e) {
    std::cout << "consumer ok: " << e.diagnostics().size() << " diagnostic(s)\n";
  }
  return 0;
}
