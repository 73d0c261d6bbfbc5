// contrib.arange_like(data, start=0, step=1, repeat=1, axis=None) (MXNet 1.x): evenly spaced
// values shaped like `data` (counting through all its elements), or like its `axis`, in data's
// dtype, each repeated `repeat` times. The values do not depend on data's: its gradient is zero.
#include "op/common/req_util.h"
#include "op/common/zero_backward.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct ArangeLikeParam {
  double start = 0, step = 1;
  int64_t repeat = 1;
  std::optional<int> axis;
};

}  // namespace

void register_arange_like_ops(Registry& r) {
  OpDef d;
  d.name = "_contrib_arange_like";
  d.doc = "start, start + step, ... shaped like data (or like its `axis`), each value `repeat` times.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "arange_like");
    ArangeLikeParam p;
    p.start = rd.get<double>("start", 0.0);
    p.step = rd.get<double>("step", 1.0);
    p.repeat = rd.get<int64_t>("repeat", 1);
    rd.get<std::string>("ctx", "");  // the output lives where data does
    p.axis = rd.get_optional<int>("axis");
    rd.finish();
    BRAID_CHECK(p.repeat >= 1, "operator arange_like: repeat must be at least 1; got ", p.repeat);
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    const auto& axis = param<ArangeLikeParam>(pa).axis;
    merge_shape(out[0], axis ? Shape({in[0][in[0].axis(*axis)]}) : in[0], "arange_like", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ArangeLikeParam>(pa);
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "arange_like", {
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
                 [&](int64_t i) { return static_cast<T>(p.start + static_cast<double>(i / p.repeat) * p.step); });
    });
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
