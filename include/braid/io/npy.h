#pragma once
/// NumPy's `.npy` files (format 1.0, as numpy.save writes them): little-endian, C order, the
/// header padded with spaces and a newline to a multiple of 64 bytes.
#include <string>

#include "braid/ndarray/ndarray.h"

namespace braid::io {

/// Writes `array` (float32, float64, int32, int64, uint8, int8, bool...) atomically.
void save_npy(const std::string& path, const NDArray& array);
/// The bytes save_npy writes.
std::string npy_bytes(const NDArray& array);

}  // namespace braid::io
