#include "linalg_util.h"

namespace braid::op::detail::linalg {

MatrixBatch matrices(const Shape& s, int row_axis) {
  const int nd = s.ndim();
  const int rows_at = row_axis < 0 ? row_axis + nd : row_axis, last = nd - 1;
  MatrixBatch m;
  m.rows = s[rows_at];
  m.cols = s[last];
  m.ld = s.prod(rows_at + 1, nd);
  m.count = m.rows * m.cols == 0 ? 0 : s.size() / (m.rows * m.cols);
  // The batch axes in order, with their strides.
  std::vector<int64_t> dims, strides;
  for (int k = 0; k < last; ++k)
    if (k != rows_at) {
      dims.push_back(s[k]);
      strides.push_back(s.prod(k + 1, nd));
    }
  m.offsets.resize(static_cast<size_t>(m.count));
  for (int64_t b = 0; b < m.count; ++b) {
    int64_t rest = b, offset = 0;
    for (size_t k = dims.size(); k-- > 0;) {
      offset += (rest % dims[k]) * strides[k];
      rest /= dims[k];
    }
    m.offsets[static_cast<size_t>(b)] = offset;
  }
  return m;
}

Shape batch_shape(const Shape& s, int drop) {
  if (s.ndim() <= drop) return Shape({1});
  return Shape(s.dims().begin(), s.dims().end() - drop);
}

void check_square(const std::string& op, const Shape& s) {
  BRAID_CHECK(s.ndim() >= 2, "operator ", op, ": A must hold matrices (at least 2 axes); got shape ", s);
  BRAID_CHECK(s[s.ndim() - 2] == s[s.ndim() - 1], "operator ", op,
              ": A must hold square matrices (its last two axes equal); got shape ", s);
}

OpDef new_op(const std::string& name, const std::string& doc, std::vector<std::string> arguments) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = no_params(name);
  d.list_arguments = args(std::move(arguments));
  return d;
}

void add_op(Registry& r, OpDef d, bool alias) {
  const std::string name = d.name;
  r.add(std::move(d));
  if (alias) r.add_alias(name.substr(1), name);  // _linalg_gemm: linalg_gemm
}

}  // namespace braid::op::detail::linalg
