// _histogram (MXNet 1.x; mx.nd.histogram / mx.sym.histogram): counts of data's elements in bins,
// NumPy's rules: bins [e_i, e_{i+1}) with the last one closed, elements outside left out. The bins
// are bin_cnt equal ones over `range`, or the edges given as a second input. Outputs the counts
// (int64) and the edges (data's dtype). No gradient.
#include <algorithm>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct HistogramParam {
  std::optional<int64_t> bin_cnt;
  double lo = 0, hi = 0;
};

/// The bin of v among ascending edges, or -1 outside them.
int64_t bin_of(double v, const std::vector<double>& edges) {
  if (!(v >= edges.front() && v <= edges.back())) return -1;  // NaN too
  if (v == edges.back()) return static_cast<int64_t>(edges.size()) - 2;
  return static_cast<int64_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
}

}  // namespace

void register_histogram_ops(Registry& r) {
  OpDef d;
  d.name = "_histogram";
  d.doc =
      "Counts of data's elements in bin_cnt equal bins over range, or in the bins between the given edges; "
      "outputs the counts (int64) and the edges.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "histogram");
    HistogramParam p;
    p.bin_cnt = rd.get_optional<int64_t>("bin_cnt");
    const std::optional<std::vector<double>> range = rd.get_optional<std::vector<double>>("range");
    rd.finish();
    if (p.bin_cnt) {
      BRAID_CHECK(*p.bin_cnt > 0, "operator histogram: bin_cnt must be positive; got ", *p.bin_cnt);
      BRAID_CHECK(range && range->size() == 2 && (*range)[0] <= (*range)[1],
                  "operator histogram: with bin_cnt, range=(low, high) with low <= high is required");
      p.lo = (*range)[0], p.hi = (*range)[1];
    }
    return std::any(p);
  };
  d.list_arguments = [](const std::any& pa) {
    return param<HistogramParam>(pa).bin_cnt ? std::vector<std::string>{"data"}
                                             : std::vector<std::string>{"data", "bins"};
  };
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<HistogramParam>(pa);
    if (p.bin_cnt) {
      merge_shape(out[0], Shape({*p.bin_cnt}), "histogram", "counts");
      merge_shape(out[1], Shape({*p.bin_cnt + 1}), "histogram", "edges");
      return in[0].known();
    }
    if (!in[1].fully_known()) return false;
    BRAID_CHECK(in[1].ndim() == 1 && in[1][0] >= 2,
                "operator histogram: bins must be a 1-D array of at least 2 edges; "
                "got shape ",
                in[1]);
    merge_shape(out[0], Shape({in[1][0] - 1}), "histogram", "counts");
    merge_shape(out[1], in[1], "histogram", "edges");
    return in[0].known();
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = DType::Int64;
    if (in.size() > 1 && in[1] == kDTypeUnknown) in[1] = in[0];
    if (out[1] == kDTypeUnknown) out[1] = in[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<HistogramParam>(pa);
    std::vector<double> edges(static_cast<size_t>(a.outputs[1].size()));
    if (p.bin_cnt) {
      for (size_t i = 0; i < edges.size(); ++i)
        edges[i] = p.lo + (p.hi - p.lo) * static_cast<double>(i) / static_cast<double>(*p.bin_cnt);
    } else {
      BRAID_TYPE_SWITCH(a.inputs[1].dtype, E, "histogram bins", {
        const E* e = a.inputs[1].ptr<E>();
        for (size_t i = 0; i < edges.size(); ++i) edges[i] = static_cast<double>(e[i]);
      });
      BRAID_CHECK(std::is_sorted(edges.begin(), edges.end()), "operator histogram: the bin edges must ascend");
    }
    std::vector<int64_t> counts(edges.size() - 1, 0);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, "histogram", {
      const T* x = a.inputs[0].ptr<T>();
      for (int64_t i = 0; i < a.inputs[0].size(); ++i) {
        const int64_t b = bin_of(static_cast<double>(x[i]), edges);
        if (b >= 0) ++counts[static_cast<size_t>(b)];
      }
    });
    write_each(a.outputs[0].ptr<int64_t>(), a.req[0], a.outputs[0].size(),
               [&](int64_t i) { return counts[static_cast<size_t>(i)]; });
    BRAID_TYPE_SWITCH(a.outputs[1].dtype, T, "histogram", {
      write_each(a.outputs[1].ptr<T>(), a.req[1], a.outputs[1].size(),
                 [&](int64_t i) { return static_cast<T>(edges[static_cast<size_t>(i)]); });
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
