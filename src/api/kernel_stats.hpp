// Kernel::stats and the explanation of a compile: what a specialization was
// made for, how its images were found, and why one that compiled did (the
// differences from the nearest earlier specialization of the same function
// in this process, then why the cache layers did not have it).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/options.hpp"
#include "croq/stats.hpp"
#include "frontend/ast.hpp"
#include "jit/jit_compiler.hpp"

namespace croq::detail {

// What one specialization was made for.
struct SpecializationRecord {
  std::vector<abi::ArgSignature> signature;  // dynamic dims as -1
  std::string arch;
  std::map<std::string, std::string> defines;  // each #define's value, options applied (define_values)
  bool debug_line_info = false;
  std::vector<std::string> dynamic_dims;
};

// The program's #defines as the specialization sees them (option defines
// over the source's): each one's value, or its text when it is no number.
std::map<std::string, std::string> define_values(const frontend::ast::Program& program);

// "f16 [128, 64], f16 [64, 256], int": dtypes and shapes, `?` for a dynamic
// dim, the pointer alignment when below 16 bytes.
std::string signature_text(const std::vector<abi::ArgSignature>& signature);

// Why `now` is not an earlier specialization: the differences from the
// nearest of `earlier` (fewest differences, then the latest), or "first call
// of `NAME`" when there is none.
std::string difference_reason(const frontend::ast::Function& function, const SpecializationRecord& now,
                              const std::vector<SpecializationRecord>& earlier);

// The public name of where an image came from.
ImageSource image_source_of(jit::CacheSource source);

// The stats of a specialization whose images were found as `lookups` say.
// `differences` is difference_reason's text, used when something compiled.
SpecializationStats specialization_stats(const SpecializationRecord& record, const std::vector<jit::JitLookup>& lookups,
                                         const std::string& differences, double specialize_ms);

// The reason line for a compile: `differences`, then each distinct note of
// the cache layers.
std::string compile_reason(const std::string& differences, const std::vector<std::string>& notes);

// CROQ_EXPLAIN's line for a specialization of `function`.
std::string explain_line(const std::string& function, const SpecializationStats& stats);

// Every specialization made in this process, by function (source text and
// entry), so that the reason can name a define another Kernel of the same
// source was compiled with. Bounded: the latest kMaxPerFunction of each.
class SpecializationHistory {
 public:
  static constexpr std::size_t kMaxPerFunction = 256;
  static SpecializationHistory& global();
  std::vector<SpecializationRecord> of(const std::string& function_key) const;
  void add(const std::string& function_key, SpecializationRecord record);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<SpecializationRecord>> records_;
};

}  // namespace croq::detail
