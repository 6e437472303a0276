// NVRTC runs where it cannot reach a file of the host. Its preprocessor
// opens whatever an #include names, absolute paths included, and prints
// the file in its errors; no NVRTC option turns that off. So the CUDA
// headers device code may include are handed to NVRTC in memory (its own
// header list, no -I path), and the compile runs on a thread of its own
// whose seccomp filter makes every open, readlink and exec fail:
// whatever spelling a directive takes, NVRTC finds nothing outside that
// list. The filter is per thread; the rest of the process is unaffected.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace croq::jit {

// The CUDA toolkit headers NVRTC gets, by the names device code includes
// them with (<cuda_fp16.h>, "crt/host_defines.h"), and their text. Read
// once from cuda_include_dir(); a header this toolkit lacks is left out.
struct DeviceHeaders {
  std::vector<std::string> names;
  std::vector<std::string> texts;
};
const DeviceHeaders& device_headers();

// The names device code may include: device_headers()'s, in the order the
// messages list them.
const std::vector<std::string>& includable_header_names();

// Runs `work` on a thread that can open, read the link of or execute no
// file (seccomp), and waits for it; an exception `work` throws is
// rethrown here. Throws CompileError when the filter cannot be installed:
// NVRTC never runs without it.
void run_without_file_access(const std::function<void()>& work);

}  // namespace croq::jit
