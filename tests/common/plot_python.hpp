// The Python that draws `croq bench --plot`'s roofline in the tests:
// $CROQ_PYTHON, else the build's venv (scripts/python-deps.sh), with the
// build tree's croqjit package on PYTHONPATH. Tests skip, saying why, when
// it cannot import croqjit.roofline and matplotlib.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "common/process.hpp"

namespace croq::test {

struct PlotPython {
  std::string python;
  std::map<std::string, std::string> env;  // CROQ_PYTHON and PYTHONPATH for the croq command
  std::string why_not;                     // empty when it draws
};

inline PlotPython plot_python(const std::filesystem::path& scratch) {
  PlotPython p;
  const char* configured = std::getenv("CROQ_PYTHON");
  p.python = configured != nullptr && *configured != '\0' ? configured : CROQ_BINARY_DIR "/python-venv/bin/python";
  p.env = {{"CROQ_PYTHON", p.python}, {"PYTHONPATH", CROQ_BINARY_DIR "/python"}};
  const ProcessResult r = run_process({p.python, "-c", "import croqjit.roofline, matplotlib.figure"}, p.env, scratch);
  if (r.exit_code != 0)
    p.why_not = p.python + " cannot import croqjit.roofline and matplotlib (set CROQ_PYTHON): " + r.err;
  return p;
}

// Whether the file at `path` starts as a PNG does.
inline bool is_png(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof head);
  return in && std::string(head, sizeof head) == std::string("\x89PNG\r\n\x1a\n", 8);
}

}  // namespace croq::test
