// croq bench --plot: the roofline PNG, drawn by the croqjit Python
// package (croqjit.roofline, matplotlib) from the figures the CLI measured.
#pragma once

#include <optional>
#include <string>

#include "croq/roofline.hpp"

namespace croq::cli {

// The JSON `python -m croqjit._bench_plot --figures` reads: the device's
// peaks and one kernel's point (flops: null when not given).
std::string roofline_figures(const DevicePeaks& peaks, const std::string& label, const KernelTiming& timing,
                             std::optional<double> flops);

// Runs $CROQ_PYTHON (default python3) -m croqjit._bench_plot with `figures`,
// writing `output`; exit status 0, else 1 with the reason on standard
// error (no Python, no croqjit or matplotlib there, a write that failed).
int draw_roofline(const std::string& figures, const std::string& output);

}  // namespace croq::cli
