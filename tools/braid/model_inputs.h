#pragma once
// Input files for braid eval, predict and infer: idx image files and NumPy .npy arrays, turned
// into the float32 batch a model takes.
#include <optional>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::cli {

/// How an input file becomes the batch a model takes.
struct InputOptions {
  std::optional<double> scale;  // default: 1/255 for uint8 pixels, 1 for other dtypes
  std::vector<double> mean{0};  // one value, or one per channel
  std::vector<double> std{1};   // likewise
  std::string layout = "auto";  // of rank-4 inputs: NCHW, NHWC, or auto
};

/// An idx file (gzip or not) or a NumPy .npy as float32 (N, ...): rank 3 (N, H, W) gains a
/// channel axis, rank 4 comes out NCHW (from NHWC when `layout` says so, or for "auto" when
/// axis 3 and not axis 1 has 1, 3 or 4 entries, as in (N, 112, 112, 3)); then x * scale,
/// minus mean, divided by std, per channel (axis 1) when given per channel.
NDArray load_inputs(const std::string& path, const InputOptions& o = {});

}  // namespace braid::cli
