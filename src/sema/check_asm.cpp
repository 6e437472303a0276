// Inline assembly: `__asm__ [volatile] ("template" : outputs : inputs :
// clobbers);` in a kernel is PTX. Its strings are literals, its operands
// name numbers and assignable places, and the template refers only to
// operands that exist (%0, %[name]).
#include <algorithm>

#include "frontend/lexer.hpp"
#include "frontend/limits.hpp"
#include "sema/checker.hpp"

namespace croq::sema::detail {

namespace {

// The PTX register class of a constraint letter: integer (h r l), float
// (f d) or an immediate (n); 0 for letters libcroqjit does not bind.
char constraint_class(char letter) {
  switch (letter) {
    case 'h': case 'r': case 'l': return 'i';
    case 'f': case 'd': return 'f';
    case 'n': return 'n';
    default: return 0;
  }
}

// Whether PTX could end this way: each instruction ends with `;`, a block
// with `}`. CPU assembly (`nop`, `mov %0, %1`) does not.
bool ends_like_ptx(const std::string& text) {
  const std::size_t last = text.find_last_not_of(" \t\r\n");
  return last == std::string::npos || text[last] == ';' || text[last] == '}';
}

}  // namespace

void StatementChecker::asm_statement(const Stmt& s, const Asm& a) {
  auto decoded = [&](const std::string& spelling, const SourceLocation& at, const char* what) {
    std::string problem;
    std::optional<std::string> v = frontend::string_value(spelling, &problem);
    if (!v)
      fail(Rule::asm_string, at, std::string("the ") + what + " of `__asm__` is " + problem,
           "write a plain string literal, e.g. \"mov.u32 %0, %1;\"");
    return *v;
  };
  std::string body;
  for (const std::string& t : a.templates) body += decoded(t, s.location, "template");
  cx_.asm_bytes_ += body.size();
  if (cx_.asm_bytes_ > frontend::limits::kMaxAsmBytes)
    fail(Rule::asm_size, s.location,
         "the inline assembly of `" + cx_.fn_.name + "` reaches " + std::to_string(cx_.asm_bytes_) + " bytes here, more than " +
             std::to_string(frontend::limits::kMaxAsmBytes) + " (16 KiB), the limit",
         "NVRTC's time grows with the square of a kernel's PTX instructions: move the loop into the kernel, or split "
         "the function");
  if (cx_.parallel_depth_ == 0)
    limitation(Rule::unsupported_asm, s.location, "`__asm__` outside a parallel statement is not supported yet by libcroqjit",
               "libcroqjit runs inline assembly in kernels, as PTX: put it inside the parallel body");
  if (!ends_like_ptx(body))
    limitation(Rule::unsupported_asm, s.location,
               "libcroqjit runs inline assembly on the GPU as PTX; " + frontend::quote(body) +
                   " does not end with `;`, so it is not PTX",
               "libcroqjit runs every kernel on the GPU, where CPU assembly cannot run: write PTX instructions, "
               "each ending with `;`");
  // Operands: outputs first, then inputs, as %0, %1, ... or %[name].
  std::vector<std::string> names;
  const std::size_t count = a.outputs.size() + a.inputs.size();
  for (std::size_t i = 0; i < count; ++i) {
    const bool output = i < a.outputs.size();
    const AsmOperand& op = output ? a.outputs[i] : a.inputs[i - a.outputs.size()];
    names.push_back(op.symbolic_name);
    const std::string c = decoded(op.constraint, op.location, "constraint");
    const bool writes = !c.empty() && (c[0] == '=' || c[0] == '+');
    if (output != writes)
      fail(Rule::asm_operand, op.location,
           output ? "the output constraint \"" + c + "\" does not begin with `=` or `+`"
                  : "the input constraint \"" + c + "\" begins with `" + c.substr(0, 1) + "`",
           output ? "write \"=r\" (written) or \"+r\" (read and written)" : "inputs are read only: write \"r\"");
    const std::string letters = writes ? c.substr(1) : c;
    const char kind = letters.size() == 1 ? constraint_class(letters[0]) : 0;
    if (kind == 0 || (output && kind == 'n')) {
      limitation(Rule::unsupported_asm, op.location,
                 "the constraint \"" + c + "\" is not supported yet by libcroqjit",
                 "libcroqjit binds PTX registers: h, r, l (16, 32, 64-bit integers), f, d (f32, f64) and n (a constant)");
      continue;
    }
    Type v = c_.expressions.expr(*op.value);
    require_ok(v);
    if (!v.is_number())
      fail(Rule::asm_operand, op.value->location,
           "`" + text(*op.value) + "` is " + kind_phrase(v.kind) + "; an assembly operand is a number", "",
           notes_of(v));
    if (v.is_narrow_element()) {
      const bool floating = is_floating(v.buffer->dtype);
      limitation(Rule::unsupported_asm, op.value->location,
                 "`" + text(*op.value) + "` is an element of type " + std::string(dtype_name(v.buffer->dtype)) +
                     "; binding one to an assembly operand is not supported yet by libcroqjit",
                 std::string("convert it first: `") + (floating ? "f32" : "s32") + " x = " + text(*op.value) +
                     ";` and bind `x` with \"" + (floating ? "f" : "r") + "\"");
    }
    const bool is_float = v.is_float() || (v.element && v.buffer && is_floating(v.buffer->dtype));
    if (kind != 'n' && is_float != (kind == 'f'))
      fail(Rule::asm_operand, op.value->location,
           "\"" + c + "\" binds " + (kind == 'f' ? "a float" : "an integer") + " register; `" + text(*op.value) +
               "` is " + (is_float ? "a float" : "an integer"),
           kind == 'f' ? "use \"r\" or \"l\" for integers" : "use \"f\" (f32) or \"d\" (f64) for floats");
    if (kind == 'n' && !(v.kind == Kind::scalar && v.known != Known::at_run_time))
      fail(Rule::asm_operand, op.value->location,
           "\"n\" takes a constant; `" + text(*op.value) + "` is known only when the kernel runs");
    if (output && !(v.element && v.buffer) && (v.kind != Kind::scalar || v.immutable || v.known != Known::at_run_time))
      fail(Rule::asm_operand, op.value->location,
           "the assembly writes `" + text(*op.value) + "`, which cannot be assigned",
           "write into an element (`x.at(i)`) or a `mutable` scalar", notes_of(v));
  }
  for (const std::string& clobber : a.clobbers) {
    const std::string c = decoded(clobber, s.location, "clobber");
    if (c != "memory")
      limitation(Rule::unsupported_asm, s.location, "the clobber \"" + c + "\" is not supported yet by libcroqjit",
                 "\"memory\" is the clobber PTX assembly takes");
  }
  // The template's operand references: %N below the count, %[name] a name.
  for (std::size_t i = 0; i + 1 < body.size(); ++i) {
    if (body[i] != '%') continue;
    const char next = body[++i];
    if (next == '[') {
      const std::size_t close = body.find(']', i);
      const std::string name = body.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
      if (close == std::string::npos || std::find(names.begin(), names.end(), name) == names.end() || name.empty())
        fail(Rule::asm_operand, s.location, "the template refers to `%[" + name + "]`, which names no operand",
             "name an operand `[" + (name.empty() ? std::string("x") : name) + "] \"r\"(...)`");
    } else if (next >= '0' && next <= '9') {
      std::size_t n = 0;
      while (i < body.size() && body[i] >= '0' && body[i] <= '9' && n < 1000) n = n * 10 + static_cast<std::size_t>(body[i++] - '0');
      --i;
      if (n >= count)
        fail(Rule::asm_operand, s.location,
             "the template refers to `%" + std::to_string(n) + "` but the statement has " + std::to_string(count) +
                 (count == 1 ? " operand" : " operands"),
             "operands count from %0: the outputs, then the inputs");
    }
  }
}

}  // namespace croq::sema::detail
