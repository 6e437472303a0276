// Lookup in the embedded device prelude files (see prelude_files.hpp).
#include "backend/cuda/prelude_files.hpp"

#include <stdexcept>

namespace croq::backend::cuda {

std::string_view prelude_file(std::string_view name) {
  for (const PreludeFile& file : prelude_files())
    if (file.name == name) return file.text;
  throw std::logic_error("device prelude file " + std::string(name) + " is not embedded in this build");
}

std::string prelude_with(std::string_view name, std::string_view generated_name, std::string_view generated) {
  const std::string_view text = prelude_file(name);
  const std::string marker = "// croq-prelude: generated " + std::string(generated_name) + "\n";
  const std::size_t at = text.find(marker);
  if (at == std::string_view::npos)
    throw std::logic_error("device prelude file " + std::string(name) + " has no line for generated " +
                           std::string(generated_name));
  std::string out(text.substr(0, at));
  out += generated;
  out += text.substr(at + marker.size());
  return out;
}

}  // namespace croq::backend::cuda
