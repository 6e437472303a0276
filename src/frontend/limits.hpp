// Limits on what one source may ask of the frontend, so that no input makes
// it run out of memory or time. Each limit that is hit is a diagnostic that
// names it; docs/reference/limits.md lists them.
#pragma once

#include <cstddef>

#include "support/format.hpp"

namespace croq::frontend::limits {

// Bytes of source text (croq::compile's string, `croq check FILE`).
constexpr std::size_t kMaxSourceBytes = std::size_t{16} << 20;

// Tokens of one source, host code included (memory: ~40 bytes a token).
constexpr std::size_t kMaxTokens = std::size_t{4} << 20;

// Tokens one use of a #define may expand to, nested defines included: a
// chain of `#define L2 L1 + L1` doubles at every level.
constexpr std::size_t kMaxTokensPerDefineUse = std::size_t{1} << 16;
// Tokens all define expansions of one source may produce together.
constexpr std::size_t kMaxExpandedTokens = std::size_t{4} << 20;
// Defines expanding defines: deeper chains are an error.
constexpr std::size_t kMaxDefineNesting = 64;

// NVRTC's time grows faster than the text it compiles (quadratically in a
// kernel's inline PTX; 660 KB of small __device__ functions take 15 s), so
// what the source hands it verbatim is capped so that a compile stays
// within seconds:
// __device__ and __cok__ code of one source, in bytes;
constexpr std::size_t kMaxDeviceCodeBytes = std::size_t{32} << 10;
// the templates of the `__asm__` statements of one __co__ function, in bytes
// (checked by sema, rule asm-size);
constexpr std::size_t kMaxAsmBytes = std::size_t{16} << 10;
// Top-level parallel statements (kernels) of one function, each an NVRTC
// compile at its first call (sema, rule kernel-count).
constexpr std::size_t kMaxKernels = 128;

// Errors and warnings reported for one source; the rest are counted in a note.
constexpr std::size_t kMaxDiagnostics = 50;

using support::group_digits;

}  // namespace croq::frontend::limits
