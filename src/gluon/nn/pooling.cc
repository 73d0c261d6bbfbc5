#include "braid/gluon/nn/pooling.h"

#include "braid/base/error.h"
#include "gluon/py_repr.h"
#include "layer_util.h"

namespace braid::gluon::nn {

PoolingBase::PoolingBase(std::string cls, int nd, const Dims& pool_size, const std::string& pool_type, bool global_pool,
                         PoolOptions opt)
    : HybridBlock("pool", opt.prefix),
      cls_(std::move(cls)),
      layout_(detail::resolve_layout(opt.layout, nd, cls_, true)),
      pool_type_(pool_type),
      global_(global_pool),
      // MXNet's global pools are built with ceil_mode=True (it has no effect on a global pool).
      ceil_mode_(global_pool || opt.ceil_mode) {
  if (global_) {
    BRAID_CHECK(
        !opt.strides && opt.padding.values() == std::vector<int64_t>{0} && !opt.ceil_mode && opt.count_include_pad,
        cls_, ": a global pool covers the whole input; only layout and prefix can be set");
  }
  BRAID_CHECK(pool_type_ == "avg" || opt.count_include_pad, cls_,
              ": count_include_pad applies to average pooling only; drop it");
  kernel_ = pool_size.expand(nd, cls_, "pool_size");
  strides_ = opt.strides.value_or(pool_size).expand(nd, cls_, "strides");
  padding_ = opt.padding.expand(nd, cls_, "padding");
  attrs_ = {{"kernel", kernel_.str()},
            {"stride", strides_.str()},
            {"pad", padding_.str()},
            {"global_pool", detail::py_bool(global_)},
            {"pool_type", pool_type_},
            {"layout", layout_},
            {"pooling_convention", ceil_mode_ ? "full" : "valid"}};
  if (pool_type_ == "avg") attrs_["count_include_pad"] = detail::py_bool(opt.count_include_pad);
  detail::check_op_attrs(cls_, "Pooling", attrs_);
}

std::vector<NDArray> PoolingBase::forward(const std::vector<NDArray>& inputs) {
  return {call_op1("Pooling", {one_input(inputs)}, attrs_)};
}

std::string PoolingBase::describe() const {
  return cat(cls_, "(size=", kernel_, ", stride=", strides_, ", padding=", padding_,
             ", ceil_mode=", detail::py_bool(ceil_mode_), ", global_pool=", detail::py_bool(global_),
             ", pool_type=", pool_type_, ", layout=", layout_, ")");
}

}  // namespace braid::gluon::nn
