// The operators over the parts of compressed arrays (braid/ndarray/sparse.h), and the dense
// meaning of MXNet's storage operators inside graphs, where every array is dense:
//  - _sparse_rsp_to_dense(data, indices), _sparse_csr_to_dense(data, indptr, indices): the dense
//    array of `shape` a compressed one stands for;
//  - _sparse_gather_rows(data, positions): row i is data[positions[i]], or zeros where it is -1;
//  - _sparse_scatter_rows(data, indices, values): data with rows indices[i] set to values[i];
//  - cast_storage(data, stype): in a graph the identity (a copy);
//  - _sparse_retain(data, indices): the rows listed in indices, every other row zero (its
//    gradient: those rows of the output's);
//  - _contrib_getnnz(data): the number of stored values, in all or per row or column.
// The copies move bytes, so they take every dtype, 16-bit ones included.
#include <algorithm>
#include <cstring>
#include <optional>

#include "braid/base/storage_type.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "square_sum.h"

namespace braid::op::detail {
namespace {

// The bytes of one row (everything after the first axis) of `b`.
size_t row_bytes(const TBlob& b) {
  return static_cast<size_t>(b.shape.ndim() > 1 ? b.shape.prod(1, b.shape.ndim()) : 1) * dtype_size(b.dtype);
}

char* bytes(const TBlob& b) { return static_cast<char*>(b.dptr); }

// memcpy and memset for ranges that may be empty, where zero-size arrays may have no memory.
void copy_bytes(void* dst, const void* src, size_t n) {
  if (n) std::memcpy(dst, src, n);
}
void zero_bytes(void* dst, size_t n) {
  if (n) std::memset(dst, 0, n);
}

void require_write(const ForwardArgs& a, const char* op) {
  BRAID_CHECK(a.req[0] == OpReq::Write || a.req[0] == OpReq::Null, "operator ", op,
              " overwrites its output; it cannot add to it");
}

void check_int64(DType t, const char* op, const char* what) {
  BRAID_CHECK(t == kDTypeUnknown || t == DType::Int64, "operator ", op, ": ", what, " must be int64, got ",
              dtype_name(t));
}

std::function<std::any(const AttrMap&)> shape_param(const char* op) {
  return [op](const AttrMap& attrs) {
    ParamReader rd(attrs, op);
    Shape s = rd.get<Shape>("shape");
    rd.finish();
    return std::any(s);
  };
}

// data, then int64 index arrays: the output is `shape` in data's dtype.
void register_to_dense(Registry& r, const char* name, std::vector<std::string> inputs) {
  OpDef d;
  d.name = name;
  d.doc = "The dense array of attribute shape that a compressed array's parts stand for.";
  d.parse = shape_param(name);
  d.list_arguments = args(inputs);
  d.infer_shape = [](const std::any& pa, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    out[0] = param<Shape>(pa);
    return true;
  };
  d.infer_type = [name](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    for (size_t i = 1; i < in.size(); ++i) check_int64(in[i], name, "an index array");
    out[0] = in[0];
  };
  if (inputs.size() == 2) {
    d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
      require_write(a, "_sparse_rsp_to_dense");
      const TBlob &data = a.inputs[0], &out = a.outputs[0];
      const size_t row = row_bytes(out);
      zero_bytes(out.dptr, static_cast<size_t>(out.size()) * dtype_size(out.dtype));
      const int64_t* rows = a.inputs[1].ptr<int64_t>();
      for (int64_t i = 0; i < a.inputs[1].size(); ++i)
        copy_bytes(bytes(out) + static_cast<size_t>(rows[i]) * row, bytes(data) + static_cast<size_t>(i) * row, row);
    };
  } else {
    d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
      require_write(a, "_sparse_csr_to_dense");
      const TBlob &data = a.inputs[0], &out = a.outputs[0];
      const size_t elem = dtype_size(out.dtype);
      const int64_t cols = out.shape[1];
      zero_bytes(out.dptr, static_cast<size_t>(out.size()) * elem);
      const int64_t *ptr = a.inputs[1].ptr<int64_t>(), *col = a.inputs[2].ptr<int64_t>();
      for (int64_t r = 0; r + 1 < a.inputs[1].size(); ++r)
        for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
          copy_bytes(bytes(out) + static_cast<size_t>(r * cols + col[k]) * elem, bytes(data) + k * elem, elem);
    };
  }
  d.cpu.takes_16bit = true;
  r.add(std::move(d));
}

void register_gather_rows(Registry& r) {
  OpDef d;
  d.name = "_sparse_gather_rows";
  d.doc = "Row i of the output is row positions[i] of data, or zeros where positions[i] is -1.";
  d.parse = no_params("_sparse_gather_rows");
  d.list_arguments = args({"data", "positions"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known() || !in[1].known()) return false;
    Shape s = in[0];
    s[0] = in[1].size();
    out[0] = s;
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    check_int64(in[1], "_sparse_gather_rows", "positions");
    out[0] = in[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    require_write(a, "_sparse_gather_rows");
    const TBlob &data = a.inputs[0], &out = a.outputs[0];
    const size_t row = row_bytes(data);
    const int64_t* pos = a.inputs[1].ptr<int64_t>();
    for (int64_t i = 0; i < a.inputs[1].size(); ++i) {
      char* dst = bytes(out) + static_cast<size_t>(i) * row;
      if (pos[i] < 0)
        zero_bytes(dst, row);
      else
        copy_bytes(dst, bytes(data) + static_cast<size_t>(pos[i]) * row, row);
    }
  };
  d.cpu.takes_16bit = true;
  r.add(std::move(d));
}

void register_scatter_rows(Registry& r) {
  OpDef d;
  d.name = "_sparse_scatter_rows";
  d.doc = "data with rows indices[i] replaced by row i of values (in place when out is data).";
  d.parse = no_params("_sparse_scatter_rows");
  d.list_arguments = args({"data", "indices", "values"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[0], "_sparse_scatter_rows", "output");
    return in[0].known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    check_int64(in[1], "_sparse_scatter_rows", "indices");
    BRAID_CHECK(in[2] == kDTypeUnknown || in[2] == in[0], "operator _sparse_scatter_rows: values must be ",
                dtype_name(in[0]), ", got ", dtype_name(in[2]));
    out[0] = in[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    require_write(a, "_sparse_scatter_rows");
    const TBlob &data = a.inputs[0], &values = a.inputs[2], &out = a.outputs[0];
    const size_t row = row_bytes(data);
    if (out.dptr != data.dptr) copy_bytes(out.dptr, data.dptr, static_cast<size_t>(data.shape[0]) * row);
    const int64_t* rows = a.inputs[1].ptr<int64_t>();
    for (int64_t i = 0; i < a.inputs[1].size(); ++i)
      copy_bytes(bytes(out) + static_cast<size_t>(rows[i]) * row, bytes(values) + static_cast<size_t>(i) * row, row);
  };
  d.cpu.takes_16bit = true;
  r.add(std::move(d));
}

void register_cast_storage(Registry& r) {
  OpDef d;
  d.name = "cast_storage";
  d.doc =
      "Converts the storage type of data to stype ('default', 'row_sparse' or 'csr'); the values are unchanged "
      "(inside a graph, where arrays are dense, a copy).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "cast_storage");
    const StorageType stype = parse_storage_type(rd.get<std::string>("stype"));
    rd.finish();
    return std::any(stype);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("cast_storage", in, out);
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    infer_same_type("cast_storage", in, out, aux);
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    require_write(a, "cast_storage");
    if (a.outputs[0].dptr != a.inputs[0].dptr)
      copy_bytes(a.outputs[0].dptr, a.inputs[0].dptr,
                 static_cast<size_t>(a.inputs[0].size()) * dtype_size(a.inputs[0].dtype));
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    const TBlob &dy = a.out_grads[0], &dx = a.in_grads[0];
    if (a.req[0] == OpReq::Write) {
      copy_bytes(dx.dptr, dy.dptr, static_cast<size_t>(dy.size()) * dtype_size(dy.dtype));
    } else if (a.req[0] == OpReq::Add) {
      BRAID_TYPE_SWITCH(dy.dtype, T, "cast_storage gradient (added)", {
        for (int64_t i = 0; i < dy.size(); ++i) dx.ptr<T>()[i] += dy.ptr<T>()[i];
      });
    }
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  d.cpu.takes_16bit = true;
  r.add(std::move(d));
}

// Which of `rows` rows the indices `ids` list (any integer or float dtype; others ignored).
std::vector<char> listed_rows(const TBlob& ids, int64_t rows) {
  std::vector<char> keep(static_cast<size_t>(rows), 0);
  BRAID_TYPE_SWITCH(ids.dtype, I, "_sparse_retain indices", {
    for (int64_t i = 0; i < ids.size(); ++i) {
      const auto k = static_cast<int64_t>(ids.ptr<I>()[i]);
      if (k >= 0 && k < rows) keep[static_cast<size_t>(k)] = 1;
    }
  });
  return keep;
}

void register_retain(Registry& r) {
  OpDef d;
  d.name = "_sparse_retain";
  d.doc = "The rows of data listed in indices; every other row is zero (row_sparse data gives row_sparse).";
  d.parse = no_params("_sparse_retain");
  d.list_arguments = args({"data", "indices"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[0], "_sparse_retain", "output");
    return in[0].known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = in[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    require_write(a, "_sparse_retain");
    const TBlob &data = a.inputs[0], &ids = a.inputs[1], &out = a.outputs[0];
    const size_t row = row_bytes(data);
    const int64_t rows = data.shape[0];
    const std::vector<char> keep = listed_rows(ids, rows);
    for (int64_t k = 0; k < rows; ++k) {
      char* dst = bytes(out) + static_cast<size_t>(k) * row;
      if (keep[static_cast<size_t>(k)])
        std::memmove(dst, bytes(data) + static_cast<size_t>(k) * row, row);
      else
        zero_bytes(dst, row);
    }
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    const TBlob &dy = a.out_grads[0], &dx = a.in_grads[0];
    const std::vector<char> keep = listed_rows(a.inputs[1], dy.shape[0]);
    const int64_t width = dy.shape.ndim() > 1 ? dy.shape.prod(1, dy.shape.ndim()) : 1;
    if (a.req[0] != OpReq::Null)
      BRAID_TYPE_SWITCH(dy.dtype, T, "_sparse_retain gradient", {
        for (int64_t k = 0; k < dy.shape[0]; ++k)
          for (int64_t c = 0; c < width; ++c) {
            const int64_t i = k * width + c;
            const T g = keep[static_cast<size_t>(k)] ? dy.ptr<T>()[i] : T(0);
            dx.ptr<T>()[i] = a.req[0] == OpReq::Add ? static_cast<T>(dx.ptr<T>()[i] + g) : g;
          }
      });
    if (a.req[1] == OpReq::Write)  // the indices get none
      zero_bytes(a.in_grads[1].dptr, static_cast<size_t>(a.in_grads[1].size()) * dtype_size(a.in_grads[1].dtype));
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.cpu.takes_16bit = true;
  r.add(std::move(d));
}

// The number of stored (non-zero) values of a 2-d array: in all (axis None, shape (1,)), per
// column (axis 0) or per row (axis 1); int64. For csr arrays it is read from indptr.
void register_getnnz(Registry& r) {
  OpDef d;
  d.name = "_contrib_getnnz";
  d.doc = "The number of stored values of a 2-d (csr) array, in all or along axis 0 or 1 (int64).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "getnnz");
    std::optional<int> axis = rd.get_optional<int>("axis");
    rd.finish();
    BRAID_CHECK(!axis || *axis == 0 || *axis == 1, "getnnz: axis must be None, 0 or 1, got ", *axis);
    return std::any(axis);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    BRAID_CHECK(in[0].ndim() == 2, "getnnz: data must be 2-d, got ", in[0]);
    const auto axis = param<std::optional<int>>(pa);
    out[0] = axis ? Shape{in[0][1 - *axis]} : Shape{1};
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Int64;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    require_write(a, "getnnz");
    const TBlob& x = a.inputs[0];
    const auto axis = param<std::optional<int>>(pa);
    int64_t* count = a.outputs[0].ptr<int64_t>();
    std::fill(count, count + a.outputs[0].size(), 0);
    const int64_t cols = x.shape[1];
    BRAID_TYPE_SWITCH(x.dtype, T, "getnnz", {
      for (int64_t i = 0; i < x.size(); ++i)
        if (x.ptr<T>()[i] != T(0)) ++count[!axis ? 0 : *axis == 0 ? i % cols : i / cols];
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_sparse_storage_ops(Registry& r) {
  register_to_dense(r, "_sparse_rsp_to_dense", {"data", "indices"});
  register_to_dense(r, "_sparse_csr_to_dense", {"data", "indptr", "indices"});
  register_gather_rows(r);
  register_scatter_rows(r);
  register_cast_storage(r);
  register_retain(r);
  register_getnnz(r);
  register_square_sum(r);
}

}  // namespace braid::op::detail
