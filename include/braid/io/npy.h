#pragma once
/// NumPy's `.npy` files (format 1.0, as numpy.save writes them): little-endian, C order, the
/// header padded with spaces and a newline to a multiple of 64 bytes.
#include <string>
#include <string_view>

#include "braid/ndarray/ndarray.h"

namespace braid::io {

/// Writes `array` (float32, float64, int32, int64, uint8, int8, bool...) atomically.
void save_npy(const std::string& path, const NDArray& array);
/// The bytes save_npy writes.
std::string npy_bytes(const NDArray& array);
/// Reads a .npy file (format 1.0, 2.0 or 3.0; C order; little-endian or byte-sized dtypes).
/// Throws naming the file and what is wrong for anything else, or for a header or data size that
/// does not add up.
NDArray load_npy(const std::string& path);
NDArray npy_array(std::string_view bytes, const std::string& source_name = "<memory>");

}  // namespace braid::io
