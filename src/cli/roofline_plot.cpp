#include "cli/roofline_plot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/utf8.hpp"

extern char** environ;

namespace croq::cli {

std::string roofline_figures(const DevicePeaks& peaks, const std::string& label, const KernelTiming& timing,
                             std::optional<double> flops) {
  nlohmann::json compute = nlohmann::json::array();
  for (const ComputePeak& c : peaks.compute) compute.push_back({c.name, c.flops_per_second});
  nlohmann::json kernel{{"label", label}, {"seconds", timing.median_ms * 1e-3}, {"bytes", timing.bytes}};
  kernel["flops"] = flops ? nlohmann::json(*flops) : nlohmann::json(nullptr);
  const nlohmann::json figures{
      {"peaks", {{"device", peaks.device}, {"memory_bytes_per_second", peaks.memory_bytes_per_second}, {"compute", compute}}},
      {"kernels", nlohmann::json::array({kernel})}};
  return support::json_text(figures);  // names from the source may hold any bytes
}

int draw_roofline(const std::string& figures, const std::string& output) {
  const char* configured = std::getenv("CROQ_PYTHON");
  const std::string python = configured != nullptr && *configured != '\0' ? configured : "python3";
  std::vector<std::string> words{python, "-m", "croqjit._bench_plot", "--figures", figures, "-o", output};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  // No shell: the paths are passed as they are.
  if (int e = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ); e != 0) {
    std::cerr << "croq bench: --plot runs " << python << " (CROQ_PYTHON) with the croqjit package and matplotlib, "
              << "which could not be started: " << std::strerror(e) << "\n";
    return 1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  std::cerr << "croq bench: --plot: `" << python << " -m croqjit._bench_plot` failed (exit status "
            << (WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status))
            << "); it needs the croqjit package and matplotlib importable there (CROQ_PYTHON, PYTHONPATH)\n";
  return 1;
}

}  // namespace croq::cli
