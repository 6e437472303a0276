// The library's build id: its version and the `git describe` of the tree it
// was built from (cmake/CroqBuildId.cmake). Part of every kernel cache key
// and recorded in each entry's metadata ("library_build"), so that kernels
// cached by another build of the library are never used by this one.
#pragma once

#include <string>

namespace croq::jit {

const std::string& library_build_id();

}  // namespace croq::jit
