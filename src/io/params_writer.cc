// Writing `.params` files: V2 records with a cpu(0) context, as MXNet 1.x writes them for cpu
// arrays, so that any MXNet 1.x can read what Braid writes; V3 records under NumPy shape semantics.
#include "braid/base/error.h"
#include "braid/io/params.h"
#include "braid/ndarray/sparse.h"
#include "byte_stream.h"
#include "params_format.h"

namespace braid::io {
namespace {

using namespace detail;

template <class T>
void put(ByteSink& out, T v) {
  out.write(&v, sizeof(T));
}

std::string label(const NamedArrays& c, size_t i) { return c.names.empty() ? cat("#", i) : cat("'", c.names[i], "'"); }

// Rejects what V2 cannot represent before a byte is written.
void validate(const NamedArrays& c) {
  BRAID_CHECK(c.names.empty() || c.names.size() == c.arrays.size(), "save: ", c.names.size(), " names for ",
              c.arrays.size(), " arrays; give one name per array or none");
  for (size_t i = 0; i < c.arrays.size(); ++i) {
    const NDArray& a = c.arrays[i];
    BRAID_CHECK(c.numpy_shapes || a.is_none() || a.ndim() > 0, "save: array ", label(c, i),
                " is 0-d (shape ()), which the V2 .params format cannot hold (ndim 0 means None); "
                "reshape it to (1,) before saving, or save it under mx.np_shape()");
    BRAID_CHECK(!c.numpy_shapes || !a.is_sparse(), "save: array ", label(c, i), " is ", storage_type_name(a.stype()),
                ", which MXNet saves only outside NumPy shape semantics; save it outside mx.np_shape() or "
                "convert it with tostype('default')");
  }
}

void put_shape(ByteSink& out, const Shape& shape) {
  put<int32_t>(out, shape.ndim());
  for (auto d : shape.dims()) put<int64_t>(out, d);
}

void put_elements(ByteSink& out, const NDArray& a) {
  NDArray host = a.ctx().is_cpu_family() ? a : a.copyto(cpu());
  host.wait_to_read();
  out.write(host.raw_data(), static_cast<size_t>(host.size()) * dtype_size(host.dtype()));
}

// V3 (NumPy shape semantics) spells None as ndim -1 and a scalar as ndim 0; V2 None as ndim 0.
// A compressed array adds the shape of its stored values before the shape, its aux arrays' dtypes
// and shapes after the dtype, and their elements after the values (MXNet's order).
void write_record(ByteSink& out, const NDArray& a, bool numpy_shapes) {
  put<uint32_t>(out, numpy_shapes ? kRecordV3Magic : kRecordV2Magic);
  put<int32_t>(out, a.is_none() ? kStypeDefault : static_cast<int32_t>(a.stype()));
  if (a.is_none()) {
    put<int32_t>(out, numpy_shapes ? -1 : 0);
    return;
  }
  const NDArray values = a.is_sparse() ? sparse::data(a) : a;
  const std::vector<NDArray> aux = a.is_sparse() ? sparse::aux(a) : std::vector<NDArray>{};
  if (a.is_sparse()) put_shape(out, values.shape());
  put_shape(out, a.shape());
  put<int32_t>(out, kDevCPU);
  put<int32_t>(out, 0);
  put<int32_t>(out, static_cast<int32_t>(a.dtype()));
  for (const auto& x : aux) {
    put<int32_t>(out, static_cast<int32_t>(x.dtype()));
    put_shape(out, x.shape());
  }
  put_elements(out, values);
  for (const auto& x : aux) put_elements(out, x);
}

void write_params(ByteSink& out, const NamedArrays& c) {
  put<uint64_t>(out, kListMagic);
  put<uint64_t>(out, 0);
  put<uint64_t>(out, c.arrays.size());
  for (const auto& a : c.arrays) write_record(out, a, c.numpy_shapes);
  put<uint64_t>(out, c.names.size());
  for (const auto& name : c.names) {
    put<uint64_t>(out, name.size());
    out.write(name.data(), name.size());
  }
}

NamedArrays unnamed(const std::vector<NDArray>& arrays) { return {{}, arrays}; }

NamedArrays split(const std::vector<std::pair<std::string, NDArray>>& named) {
  NamedArrays c;
  for (const auto& [name, array] : named) {
    c.names.push_back(name);
    c.arrays.push_back(array);
  }
  return c;
}

}  // namespace

void save(const std::string& path, const NamedArrays& contents) {
  try {
    validate(contents);
  } catch (const Error& e) {
    throw Error(cat(path, ": ", e.what()));
  }
  write_file_atomically(path, [&](ByteSink& out) { write_params(out, contents); });
}

void save(const std::string& path, const std::vector<NDArray>& arrays) { save(path, unnamed(arrays)); }

void save(const std::string& path, const std::vector<std::pair<std::string, NDArray>>& named) {
  save(path, split(named));
}

std::string save_to_bytes(const NamedArrays& contents) {
  validate(contents);
  StringSink out;
  write_params(out, contents);
  return out.take();
}

std::string save_to_bytes(const std::vector<NDArray>& arrays) { return save_to_bytes(unnamed(arrays)); }

std::string save_to_bytes(const std::vector<std::pair<std::string, NDArray>>& named) {
  return save_to_bytes(split(named));
}

std::string save_array_to_raw_bytes(const NDArray& array) {
  validate(unnamed({array}));
  StringSink out;
  write_record(out, array, false);
  return out.take();
}

}  // namespace braid::io
