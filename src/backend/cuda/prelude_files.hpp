// The device prelude's files (src/backend/cuda/prelude/*.cuh), embedded into
// the library at build time (cmake/CroqEmbedPrelude.cmake). Each file is a
// header of its own: include-guarded, its braces balanced, including what it
// needs of the others, and compilable alone (the ctest prelude_headers).
// Embedded, a file's text has neither its opening comment nor its includes
// of sibling .cuh files: the backend pastes the files in dependency order.
//
// A file may hold a line `// croq-prelude: generated NAME` where the
// backend pastes code generated for a kernel (the TMA functions of rank 1..5,
// the WGMMA specializations of the forms a kernel uses): prelude_with.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace croq::backend::cuda {

struct PreludeFile {
  std::string_view name;  // e.g. "hopper_core.cuh"
  std::string_view text;  // as embedded (a whole string literal: NUL-terminated)
};

// Every embedded file, sorted by name (defined in the generated source).
std::span<const PreludeFile> prelude_files();

// The text of the file `name`; a build without it is a fault of the library
// (std::logic_error).
std::string_view prelude_file(std::string_view name);

// The text of the file `name` with its line `// croq-prelude: generated
// <generated_name>` replaced by `generated` (std::logic_error if it has no
// such line).
std::string prelude_with(std::string_view name, std::string_view generated_name, std::string_view generated);

}  // namespace croq::backend::cuda
