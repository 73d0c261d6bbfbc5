#pragma once
/// MXNet 1.x `.params` files (`nd.save` / `nd.load`), byte-compatible. Reads record versions
/// pre-V1, V1, V2 and V3; writes V2 (V3 for NumPy shape semantics) with a cpu(0) context. Loaded arrays live on cpu().
/// Layout, validation and the atomic-write guarantee: docs/formats.md.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::io {

/// The contents of a `.params` file: `names` is empty for an unnamed list (`nd.save(f, [a, b])`),
/// else `names[i]` names `arrays[i]` in file order. A record of MXNet's None array loads as a
/// default-constructed (is_none()) NDArray.
struct NamedArrays {
  std::vector<std::string> names;
  std::vector<NDArray> arrays;
  /// NumPy shape semantics (MXNet's V3 records, written under `mx.np_shape()`): a 0-d array is a
  /// scalar rather than None. `load` sets it when the file's records are V3; `save` then writes V3.
  bool numpy_shapes = false;
};

/// Reads `path`; throws braid::Error naming the path, the byte offset and what was expected when
/// the file is missing, truncated, corrupt or holds sparse arrays.
NamedArrays load(const std::string& path);
/// Parses an in-memory image of a file; `source_name` stands for the path in error messages.
NamedArrays load_from_bytes(std::string_view bytes, const std::string& source_name = "<memory>");

/// Writes atomically (temporary file, fsync, rename): `path` holds either its old contents or the
/// complete new file. Arrays on other contexts are copied to the cpu; dtypes are preserved.
/// A 0-d array is rejected unless numpy_shapes (V2 spells None as ndim 0); a None array is
/// written as None.
void save(const std::string& path, const std::vector<NDArray>& arrays);
/// Named list, in the given order (MXNet's `nd.save(f, {"name": array})`).
void save(const std::string& path, const std::vector<std::pair<std::string, NDArray>>& named);
void save(const std::string& path, const NamedArrays& contents);

/// The bytes `save` would write.
std::string save_to_bytes(const std::vector<NDArray>& arrays);
std::string save_to_bytes(const std::vector<std::pair<std::string, NDArray>>& named);
std::string save_to_bytes(const NamedArrays& contents);

/// One array as a single record without the file's header and names: MXNet's raw bytes of an
/// NDArray (MXNDArraySaveRawBytes), what pickling an NDArray stores.
std::string save_array_to_raw_bytes(const NDArray& array);
NDArray load_array_from_raw_bytes(std::string_view bytes, const std::string& source_name = "<memory>");

}  // namespace braid::io
