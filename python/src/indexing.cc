// NDArray.__getitem__ / __setitem__ with NumPy's basic indexing (ints, slices with steps, None,
// Ellipsis) and an NDArray or list index on the first axis. A leading int or unit-step slice is a
// view sharing memory, as in MXNet (writing to x[1:3] writes to x); the rest are copies through
// registered operators, so they are recorded by autograd.
#include <pybind11/numpy.h>

#include <algorithm>
#include <cstring>

#include "bindings.h"
#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/base/np_shape.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/indexing.h"
#include "braid/ndarray/invoke.h"

namespace braid::python {
namespace {

/// One axis of an index: an int (the axis goes away) or begin/step/count.
struct AxisIndex {
  bool integer = false;
  int64_t begin = 0, step = 1, count = 0;
  bool full(int64_t n) const { return !integer && begin == 0 && step == 1 && count == n; }
};

/// The per-axis selection of a basic index; `new_axes` are the positions of None in the result.
struct BasicIndex {
  std::vector<AxisIndex> axes;
  std::vector<size_t> new_axes;
};

BasicIndex parse_index(const Shape& shape, py::handle index) {
  py::tuple items = py::isinstance<py::tuple>(index) ? py::reinterpret_borrow<py::tuple>(index) : py::make_tuple(index);
  size_t used = 0;
  for (auto it : items) used += !(it.is_none() || it.is(py::ellipsis()));
  const int ndim = shape.ndim();
  BRAID_CHECK(static_cast<int>(used) <= ndim, "index ", py::repr(index).cast<std::string>(), " has ", used,
              " entries for an array of shape ", shape);
  BasicIndex r;
  size_t result_axis = 0;
  for (auto it : items) {
    const int a = static_cast<int>(r.axes.size());
    if (it.is_none()) {
      r.new_axes.push_back(result_axis++);
    } else if (it.is(py::ellipsis())) {
      size_t fill = static_cast<size_t>(ndim) - used;
      for (size_t k = 0; k < fill; ++k) {
        int ax = static_cast<int>(r.axes.size());
        r.axes.push_back({false, 0, 1, shape[ax]});
        ++result_axis;
      }
      used = static_cast<size_t>(ndim);  // a second Ellipsis adds nothing
    } else if (py::isinstance<py::slice>(it)) {
      py::ssize_t start, stop, step, len;
      BRAID_CHECK(py::reinterpret_borrow<py::slice>(it).compute(shape[a], &start, &stop, &step, &len),
                  "invalid slice in index");
      r.axes.push_back({false, start, step, len});
      ++result_axis;
    } else {
      int64_t i = py::int_(py::reinterpret_borrow<py::object>(it)).cast<int64_t>();
      int64_t n = shape[a];
      BRAID_CHECK(i >= -n && i < n, "index ", i, " is out of bounds for axis ", a, " with size ", n);
      r.axes.push_back({true, i < 0 ? i + n : i, 1, 1});
    }
  }
  while (static_cast<int>(r.axes.size()) < ndim) {
    int ax = static_cast<int>(r.axes.size());
    r.axes.push_back({false, 0, 1, shape[ax]});
  }
  return r;
}

bool is_basic(py::handle index) {
  auto basic_item = [](py::handle h) {
    return h.is_none() || h.is(py::ellipsis()) || py::isinstance<py::slice>(h) || py::isinstance<py::int_>(h) ||
           py::isinstance(h, py::module_::import("numpy").attr("integer"));
  };
  if (py::isinstance<py::tuple>(index)) {
    for (auto it : py::reinterpret_borrow<py::tuple>(index))
      if (!basic_item(it)) return false;
    return true;
  }
  return basic_item(index);
}

std::string str(int64_t v) { return std::to_string(v); }

/// Whether the selection is one contiguous range of the row-major array (MXNet's rule, as NumPy
/// decides for its own views): right to left, once an axis selects a proper part of itself, every
/// axis further left selects at most one element; a step other than 1 selects at most one.
bool is_contiguous(const Shape& shape, const BasicIndex& ix) {
  int64_t total = 1;
  for (const auto& s : ix.axes) total *= s.count;
  if (total <= 1) return true;
  bool part = false;
  for (size_t k = ix.axes.size(); k-- > 0;) {
    const AxisIndex& s = ix.axes[k];
    if (s.count > 1 && (s.step != 1 || part)) return false;
    part = part || s.count < shape[static_cast<int>(k)];
  }
  return true;
}

/// One element selected by ints on every axis is a (1,)-shaped array in MXNet 1.x, a 0-d one
/// with NumPy shape semantics.
std::vector<int64_t> with_legacy_scalar(std::vector<int64_t> dims, const BasicIndex& ix) {
  if (dims.empty() && !ix.axes.empty() && !np_shape()) dims.push_back(1);
  return dims;
}

/// The dims of the result of a basic index: selected axes (not ints) with None's new axes.
std::vector<int64_t> result_dims(const BasicIndex& ix) {
  std::vector<int64_t> dims;
  for (const auto& s : ix.axes)
    if (!s.integer) dims.push_back(s.count);
  for (size_t pos : ix.new_axes) dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(std::min(pos, dims.size())), 1);
  return with_legacy_scalar(dims, ix);
}

/// Axis `axis` of `r` read with a step other than 1: the slice operator (a strided view that a
/// hybridized graph records as one node), or a gather when nothing is selected.
NDArray stepped_slice(const NDArray& r, int axis, const AxisIndex& s) {
  if (s.count == 0) return nd::take(r, nd::array(std::vector<int64_t>{}, Shape({0}), r.ctx(), DType::Int64), axis);
  const int64_t end = s.begin + s.count * s.step;  // below 0 only past the first element: MXNet's None
  std::string begins = "(", ends = "(", steps = "(";
  for (int k = 0; k < axis; ++k) {
    begins += "None,";
    ends += "None,";
    steps += "None,";
  }
  begins += str(s.begin) + ")";
  ends += (end < 0 ? std::string("None") : str(end)) + ")";
  steps += str(s.step) + ")";
  return nd::invoke1("slice", {r}, {{"begin", begins}, {"end", ends}, {"step", steps}});
}

NDArray get_basic(const NDArray& a, const BasicIndex& ix) {
  int64_t total = 1, offset = 0;
  for (size_t k = 0; k < ix.axes.size(); ++k) {
    total *= ix.axes[k].count;
    offset += ix.axes[k].begin * a.shape().prod(static_cast<int>(k) + 1, a.ndim());
  }
  // A contiguous selection is a view sharing memory with `a`, as in MXNet.
  if (total > 0 && is_contiguous(a.shape(), ix))
    return a.reshape({-1}).slice(offset, offset + total).reshape(result_dims(ix));
  NDArray r = a;
  int axis = 0;  // of r
  std::vector<int64_t> dims;
  for (size_t k = 0; k < ix.axes.size(); ++k) {
    const AxisIndex& s = ix.axes[k];
    const int64_t n = r.shape()[axis];
    if (k == 0 && s.step == 1) {
      r = s.integer ? r.at(s.begin) : r.slice(s.begin, s.begin + s.count);  // a view
      if (!s.integer) {
        dims.push_back(s.count);
        ++axis;
      }
      continue;
    }
    if (s.step == 1 && !s.full(n)) {
      r = nd::invoke1("slice_axis", {r},
                      {{"axis", str(axis)}, {"begin", str(s.begin)}, {"end", str(s.begin + s.count)}});
    } else if (s.step != 1) {
      r = stepped_slice(r, axis, s);
    }
    if (!s.integer) dims.push_back(s.count);
    ++axis;
  }
  for (size_t pos : ix.new_axes) dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(std::min(pos, dims.size())), 1);
  dims = with_legacy_scalar(dims, ix);
  return dims == r.shape().dims() ? r : r.reshape(dims);
}

/// Element offsets of the selected region of a contiguous array of `shape`, in row-major order.
void region_offsets(const Shape& shape, const BasicIndex& ix, size_t axis, int64_t base, std::vector<int64_t>& out) {
  if (axis == ix.axes.size()) {
    out.push_back(base);
    return;
  }
  int64_t stride = shape.prod(static_cast<int>(axis) + 1, shape.ndim());
  const AxisIndex& s = ix.axes[axis];
  for (int64_t i = 0; i < s.count; ++i)
    region_offsets(shape, ix, axis + 1, base + (s.begin + i * s.step) * stride, out);
}

/// `v` without the axes that None adds to the index's result: NumPy aligns an assigned value with
/// that result (right-aligned), where those axes have size 1.
NDArray without_new_axes(const NDArray& v, const BasicIndex& ix) {
  const std::vector<int64_t> full = result_dims(ix);
  if (ix.new_axes.empty() || static_cast<size_t>(v.ndim()) > full.size()) return v;
  std::vector<int64_t> d = v.shape().dims();
  d.insert(d.begin(), full.size() - d.size(), 1);
  std::vector<int64_t> kept;
  for (size_t i = 0; i < d.size(); ++i) {
    const bool added = std::find(ix.new_axes.begin(), ix.new_axes.end(), i) != ix.new_axes.end();
    BRAID_CHECK(!added || d[i] == 1, "cannot assign a value of shape ", v.shape(), " to a region of shape ",
                Shape(full));
    if (!added) kept.push_back(d[i]);
  }
  return v.reshape(kept);
}

/// The value assigned to the region `ix` selects of `target` (dtype and context): converted, and
/// with leading axes of size 1 beyond the region's rank dropped, as NumPy broadcasts an assignment.
NDArray assigned_value(py::handle value, const NDArray& target, const Shape& region, const BasicIndex& ix) {
  NDArray v = py::isinstance<NDArray>(value) ? value.cast<NDArray>() : from_numpy(value, target.ctx(), target.dtype());
  if (v.dtype() != target.dtype()) v = v.astype(target.dtype());
  if (v.ctx() != target.ctx()) v = v.as_in_context(target.ctx());
  v = without_new_axes(v, ix);
  if (v.ndim() > region.ndim()) {
    const int extra = v.ndim() - region.ndim();
    for (int i = 0; i < extra; ++i)
      BRAID_CHECK(v.shape()[i] == 1, "cannot assign a value of shape ", v.shape(), " to a region of shape ", region);
    v = v.reshape(std::vector<int64_t>(v.shape().dims().begin() + extra, v.shape().dims().end()));
  }
  return v;
}

}  // namespace

/// Any NumPy index of `a` with integer arrays in it (advanced indexing, mixed with ints, slices,
/// None and ...), worked out by NumPy on the positions of the rows it selects from: `a` is seen as
/// `rows` = (product of the first k axes the index names, the remaining axes...), and `flat`
/// (the selection's leading shape, int64) holds the row each selected element comes from.
struct MultiIndex {
  py::object flat;
  std::vector<int64_t> rows;
};

MultiIndex multi_index(const NDArray& a, py::handle index) {
  py::module_ np = py::module_::import("numpy");
  py::tuple items = py::isinstance<py::tuple>(index) ? py::reinterpret_borrow<py::tuple>(index) : py::make_tuple(index);
  py::list converted;
  int k = 0;
  bool ellipsis = false;
  for (py::handle item : items) {
    ellipsis = ellipsis || item.is(py::ellipsis());
    k += item.is_none() || item.is(py::ellipsis()) ? 0 : 1;
    converted.append(py::isinstance<NDArray>(item) ? py::object(to_numpy(item.cast<NDArray>()).attr("astype")("int64"))
                                                   : py::reinterpret_borrow<py::object>(item));
  }
  if (ellipsis) k = a.ndim();
  BRAID_CHECK(k <= a.ndim(), "too many indices (", k, ") for an array of shape ", a.shape());
  py::tuple dims(k);
  for (int i = 0; i < k; ++i) dims[static_cast<size_t>(i)] = a.shape()[i];
  py::object positions = np.attr("arange")(a.shape().prod(0, k), py::arg("dtype") = "int64").attr("reshape")(dims);
  std::vector<int64_t> rows = {a.shape().prod(0, k)};
  rows.insert(rows.end(), a.shape().dims().begin() + k, a.shape().dims().end());
  return {np.attr("asarray")(positions.attr("__getitem__")(py::tuple(converted))), rows};
}

/// The shape of what `m` selects.
std::vector<int64_t> selection_shape(const MultiIndex& m) {
  std::vector<int64_t> shape = m.flat.attr("shape").cast<std::vector<int64_t>>();
  shape.insert(shape.end(), m.rows.begin() + 1, m.rows.end());
  return shape;
}

/// The selection as a new array, gathered with take (so autograd sees it).
NDArray get_multi_index(const NDArray& a, py::handle index) {
  const MultiIndex m = multi_index(a, index);
  NDArray rows = a.reshape(m.rows);
  return nd::take(rows, from_numpy(m.flat.attr("reshape")(-1), a.ctx(), DType::Int64), 0).reshape(selection_shape(m));
}

/// a[i0, i1, ...] = value: the value broadcast to the selection's shape, rows written in order (a
/// repeated index keeps the last write, as NumPy).
void set_multi_index(NDArray& a, py::handle index, py::handle value) {
  BRAID_CHECK(!autograd::is_recording(),
              "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with autograd: assign "
              "outside autograd.record(), or build the result with operators");
  BRAID_CHECK(a.ctx().is_cpu_family(), "assignment with integer array indices is only supported on the CPU");
  const MultiIndex m = multi_index(a, index);
  const auto flat = m.flat.attr("ravel")().cast<std::vector<int64_t>>();
  const std::vector<int64_t> selection = selection_shape(m);
  NDArray src = assigned_value(value, a, Shape(selection), BasicIndex{}).as_in_context(cpu());
  if (src.ndim() == 0) src = src.reshape({1});
  src = nd::broadcast_to(src, Shape(selection));
  py::gil_scoped_release release;
  src.wait_to_read();
  a.wait_to_write();
  const size_t row_bytes =
      static_cast<size_t>(Shape(m.rows).prod(1, static_cast<int>(m.rows.size()))) * dtype_size(a.dtype());
  auto* dst = static_cast<char*>(a.raw_data());
  const auto* from = static_cast<const char*>(src.raw_data());
  for (size_t i = 0; i < flat.size(); ++i)
    std::memcpy(dst + static_cast<size_t>(flat[i]) * row_bytes, from + i * row_bytes, row_bytes);
}

py::object getitem(const NDArray& a, py::handle index) {
  if (is_basic(index)) return py::cast(get_basic(a, parse_index(a.shape(), index)));
  return py::cast(get_multi_index(a, index));
}

void setitem(NDArray& a, py::handle index, py::handle value) {
  if (!is_basic(index)) return set_multi_index(a, index, value);
  BasicIndex ix = parse_index(a.shape(), index);
  // Writing part of an array reads the rest of it, so MXNet records the array as an input of the
  // write into itself, which it refuses while recording; the whole array is a plain copy.
  bool whole = true;
  for (size_t k = 0; k < ix.axes.size(); ++k) whole = whole && ix.axes[k].full(a.shape()[static_cast<int>(k)]);
  BRAID_CHECK(whole || !autograd::is_recording(),
              "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with autograd: assign "
              "to part of an array outside autograd.record(), or build the result with operators");
  // The region as a view when it is contiguous: the first axis selected with a unit step, the
  // others whole.
  bool contiguous = ix.axes.empty() || ix.axes[0].step == 1;
  for (size_t k = 1; k < ix.axes.size() && contiguous; ++k)
    contiguous = ix.axes[k].full(a.shape()[static_cast<int>(k)]);
  if (contiguous) {
    NDArray region = ix.axes.empty()      ? a
                     : ix.axes[0].integer ? a.at(ix.axes[0].begin)
                                          : a.slice(ix.axes[0].begin, ix.axes[0].begin + ix.axes[0].count);
    if (py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
      region.fill(value.cast<double>());
    else
      region.assign(assigned_value(value, region, region.shape(), ix));
    return;
  }
  // A strided region: written element by element once pending work on `a` is done.
  std::vector<int64_t> dims;
  for (const auto& s : ix.axes)
    if (!s.integer) dims.push_back(s.count);
  if (dims.empty()) dims.push_back(1);
  NDArray src = assigned_value(value, a, Shape(dims), ix).as_in_context(cpu());
  if (src.ndim() == 0) src = src.reshape({1});
  src = nd::broadcast_to(src, Shape(dims));
  std::vector<int64_t> offsets;
  region_offsets(a.shape(), ix, 0, 0, offsets);
  BRAID_CHECK(a.ctx().is_cpu_family(), "strided assignment is only supported on the CPU");
  py::gil_scoped_release release;
  src.wait_to_read();
  a.wait_to_write();
  const size_t bytes = dtype_size(a.dtype());
  auto* dst = static_cast<char*>(a.raw_data());
  const auto* from = static_cast<const char*>(src.raw_data());
  for (size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(dst + static_cast<size_t>(offsets[i]) * bytes, from + i * bytes, bytes);
}

void bind_indexing(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<NDArray>>(m.attr("NDArray"));
  cls.def("__getitem__", &getitem).def("__setitem__", &setitem);
  cls.def_static(
      "_basic_indexing_slice_is_contiguous",
      [](py::handle key, py::handle shape) {
        return is_contiguous(to_shape(shape), parse_index(to_shape(shape), key));
      },
      py::arg("slc_key"), py::arg("shape"));
}

}  // namespace braid::python
