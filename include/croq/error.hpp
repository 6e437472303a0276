// Exceptions thrown by libcroqjit. Every error derives from croq::Error.
#pragma once

#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

namespace croq {

// what() is valid UTF-8: bytes of the message that are not (from a file
// name, a source line, a tool's log) are replaced by U+FFFD, so the text can
// go into JSON or a Python string as it is.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  explicit Error(const char* message);
};

enum class Severity { error, warning, note };

// One message about a source text. Lines and columns are 1-based; column
// counts bytes. line == 0 means the message has no location.
struct Diagnostic {
  Diagnostic() = default;
  Diagnostic(Severity severity, std::string message, int line = 0, int column = 0, int length = 1,
             std::string hint = {}, std::string rule = {}, std::vector<std::string> notes = {})
      : severity(severity), message(std::move(message)), line(line), column(column), length(length),
        hint(std::move(hint)), rule(std::move(rule)), notes(std::move(notes)) {}

  Severity severity = Severity::error;
  std::string message;
  int line = 0;
  int column = 0;
  int length = 1;    // bytes the caret underlines
  std::string hint;  // optional: "did you mean `=>`?"
  // Semantic checks: the violated rule's stable id ("chunkat-arity"), and
  // how the checker derived what it reports ("`lhs` is parameter 1: f16
  // [M, K], rank 2"), one line each. Empty for other diagnostics.
  std::string rule;
  std::vector<std::string> notes;
};

// "error" / "warning" / "note".
const char* severity_name(Severity s);

// Renders diagnostics the way compilers do:
//   kernel.co:3:14: error: expected `=>`, found `shared`
//       a = dma.copy x shared;
//                      ^~~~~~
//     hint: did you mean `=>`?
// A diagnostic with a rule names it after the message (`... [chunkat-arity]`)
// and prints its notes as `  note: ...` lines before the hint.
std::string render_diagnostics(const std::vector<Diagnostic>& diags, const std::string& source,
                               const std::string& source_name);

// The source did not compile: Croqtile syntax or semantic errors, or NVRTC
// rejecting generated CUDA. what() is the rendered text of all diagnostics.
class CompileError : public Error {
 public:
  CompileError(std::vector<Diagnostic> diagnostics, std::string source,
               std::string source_name = "<source>");

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const std::string& source() const { return source_; }
  const std::string& source_name() const { return source_name_; }
  // Machine-readable form: {"source": name, "diagnostics": [{severity,
  // message, line, column, length, hint, rule, notes}, ...]} (hint, rule and
  // notes only when present).
  std::string to_json() const;

 private:
  std::vector<Diagnostic> diagnostics_;
  std::string source_;
  std::string source_name_;
};

// A kernel was called with arguments that do not fit its signature.
class ArgumentError : public Error {
 public:
  using Error::Error;
};

// A CUDA driver call failed, or no driver is present. call() names the
// driver function ("cuLaunchKernel"); code() is its CUresult (0 when no
// driver could be loaded at all).
class CudaError : public Error {
 public:
  CudaError(std::string call, int code, const std::string& message);
  const std::string& call() const { return call_; }
  int code() const { return code_; }

 private:
  std::string call_;
  int code_;
};

// The on-disk kernel cache could not be used as asked (the croq-cache tool
// and explicit cache operations; normal compiles degrade instead), or a call
// would compile under CROQ_CACHE_REQUIRE_HIT=1.
class CacheError : public Error {
 public:
  using Error::Error;
};

// Interpret mode (CompileOptions::interpret, CROQ_INTERPRET=1) found a
// hazard the GPU would not report (an out-of-bounds access, a read before
// its copy completed, a tile overwritten while a multiply may read it,
// threads that disagree on a barrier), or a construct it cannot run.
// what() names the Croqtile line and shows it; line() is that line (0:
// unknown).
class InterpretError : public Error {
 public:
  InterpretError(const std::string& what, int line) : Error(what), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

}  // namespace croq
