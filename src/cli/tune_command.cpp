#include "cli/tune_command.hpp"

#include <iostream>

#include "cli/cli_common.hpp"
#include "croq/tune.hpp"

namespace croq::cli {

bool parse_tune_axis(const std::string& spec, TuneAxes& axes, std::string& error) {
  const std::size_t eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  if (eq == std::string::npos || eq + 1 == spec.size()) {
    error = "--tune needs NAME=V1,V2,..., got `" + spec + "`";
    return false;
  }
  for (const auto& axis : axes)
    if (axis.first == name) {
      error = "--tune " + name + " is given twice; list every value in one --tune " + name + "=V1,V2,...";
      return false;
    }
  std::vector<DefineValue> values;
  const std::string list = spec.substr(eq + 1);
  for (std::size_t start = 0;;) {
    const std::size_t comma = list.find(',', start);
    const std::string value = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (value.empty()) {
      error = "--tune " + name + ": empty value in `" + list + "`";
      return false;
    }
    CompileOptions parsed;
    if (!parse_define(name + "=" + value, parsed, error)) {
      if (error.rfind("--define", 0) == 0) error.replace(0, 8, "--tune");
      return false;
    }
    values.push_back(parsed.defines.begin()->second);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  axes.emplace_back(name, std::move(values));
  return true;
}

std::optional<Kernel> tune_for_bench(const std::string& source, const CompileOptions& options, const TuneAxes& axes,
                                     const std::vector<Tensor>& arguments) {
  const std::vector<TuneConfig> configs = cross_product(axes);
  std::vector<Arg> call(arguments.begin(), arguments.end());
  TuneOptions tune_options;
  tune_options.compile = options;
  std::cout << "tuning " << configs.size() << " configuration" << (configs.size() == 1 ? "" : "s") << "\n";
  try {
    TuneResult tuned = tune(source, configs, call, tune_options);
    if (tuned.from_cache) {
      std::cout << "chosen: " << tuned.config.str() << " (recorded by an earlier tune"
                << (tuned.record_path.empty() ? "" : " in " + tuned.record_path) << "; nothing timed)\n";
    } else {
      std::cout << format_tune_table(tuned.trials, tuned.index);
    }
    return tuned.kernel;
  } catch (const TuneError& e) {
    std::cerr << e.what();
    return std::nullopt;
  }
}

}  // namespace croq::cli
