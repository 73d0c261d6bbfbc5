#include "braid/ndarray/ordering.h"

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"

namespace braid::nd {
namespace {

op::AttrMap order_attrs(std::optional<int> axis, bool is_ascend) {
  return {{"axis", axis ? op::format_number(*axis) : "None"}, {"is_ascend", is_ascend ? "True" : "False"}};
}

op::AttrMap topk_attrs(std::optional<int> axis, int k, const std::string& ret_typ, bool is_ascend, DType dtype) {
  auto a = order_attrs(axis, is_ascend);
  a["k"] = op::format_number(k);
  a["ret_typ"] = ret_typ;
  a["dtype"] = dtype_name(dtype);
  return a;
}

}  // namespace

NDArray topk(const NDArray& x, std::optional<int> axis, int k, const std::string& ret_typ, bool is_ascend,
             DType dtype) {
  BRAID_CHECK(ret_typ != "both", "nd::topk: ret_typ 'both' returns two arrays; call nd::topk_both");
  return invoke1("topk", {x}, topk_attrs(axis, k, ret_typ, is_ascend, dtype));
}

std::pair<NDArray, NDArray> topk_both(const NDArray& x, std::optional<int> axis, int k, bool is_ascend, DType dtype) {
  auto outs = invoke("topk", {x}, topk_attrs(axis, k, "both", is_ascend, dtype));
  return {outs[0], outs[1]};
}

NDArray sort(const NDArray& x, std::optional<int> axis, bool is_ascend) {
  return invoke1("sort", {x}, order_attrs(axis, is_ascend));
}

NDArray argsort(const NDArray& x, std::optional<int> axis, bool is_ascend, DType dtype) {
  auto a = order_attrs(axis, is_ascend);
  a["dtype"] = dtype_name(dtype);
  return invoke1("argsort", {x}, a);
}

}  // namespace braid::nd
