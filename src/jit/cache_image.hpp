// Whether a cache entry's image can be what the driver loads for its entry:
// a 64-bit little-endian ELF file for the CUDA machine (EM_CUDA) whose
// section headers lie inside it and whose symbol table defines the entry as
// a function, or, for a PTX image, one NUL-terminated text with a `.entry`
// of that name. A checksum only says the bytes are the ones that were
// stored; this says they are a kernel image at all, so an empty, truncated
// or random file with a matching checksum is refused before the driver sees
// it. What the driver still refuses is discarded at load (launcher.cpp).
#pragma once

#include <string>
#include <string_view>

namespace croq::jit {

// Why `image` is not a loadable image of `entry` ("" when it may be).
std::string image_problem(std::string_view image, bool is_ptx, std::string_view entry);

}  // namespace croq::jit
