#pragma once
/// Reading the IDX files of (Fashion-)MNIST, gzipped or not.
#include <string>

#include "braid/ndarray/ndarray.h"

namespace braid::io {

/// Images as float32 (N, 1, rows, cols) scaled to [0, 1].
NDArray load_idx_images(const std::string& path);
/// Labels as float32 (N,).
NDArray load_idx_labels(const std::string& path);
/// The file's unsigned bytes as a uint8 array of the shape its header gives (e.g. (N, 28, 28)).
NDArray load_idx(const std::string& path);
/// Where Debian's dataset-fashion-mnist puts the files (BRAID_FASHION_MNIST_DIR overrides).
std::string fashion_mnist_dir();

}  // namespace braid::io
