// Channels-last regions: float32 2-D Convolution and Pooling steps, and the element-wise steps
// that read their results, run on NHWC data. Every value such a step writes gets an NHWC twin
// that the step writes instead; a reader that needs the NCHW value (any other op, or the symbol's
// outputs) gets a transpose back to the original value, and a moved step whose input has no twin
// gets a transpose into NHWC. Convolution weights are transposed to (F, kh, kw, C/g), MXNet's
// NHWC weight layout. The backward pass then differentiates the transposes like any other step.
#include <map>
#include <set>

#include "braid/op/registry.h"
#include "exec_plan.h"

namespace braid::symbol::detail {
namespace {

constexpr const char* kToLast = "(0, 2, 3, 1)";
constexpr const char* kToFirst = "(0, 3, 1, 2)";

Shape channels_last_shape(const Shape& s) { return Shape({s[0], s[2], s[3], s[1]}); }

class ChannelsLast {
 public:
  explicit ChannelsLast(Plan& plan) : plan_(plan), transpose_(op::Registry::get().find("transpose")) {}

  void run() {
    std::vector<Step> steps = std::move(plan_.steps);
    plan_.steps.clear();
    for (Step& s : steps) {
      if (movable(s))
        move(s);
      else if (follows(s))
        follow(s);
      else
        for (uint32_t& v : s.inputs) v = channels_first(v, s.ctx);
      plan_.steps.push_back(std::move(s));
    }
    for (uint32_t v : plan_.outputs) channels_first(v, plan_.values[v].ctx);
  }

 private:
  bool movable(const Step& s) const {
    // A CPU layout choice (oneDNN's NHWC kernels); the GPU kernels keep MXNet's NCHW.
    if (!s.def || !s.ctx.is_cpu_family() || (s.def->name != "Convolution" && s.def->name != "Pooling")) return false;
    const Value& data = plan_.values[s.inputs[0]];
    auto layout = s.attrs.find("layout");
    return data.dtype == DType::Float32 && data.shape.ndim() == 4 &&
           (layout == s.attrs.end() || layout->second == "NCHW" || layout->second == "None");
  }

  // An element-wise step reading a value that already has a twin.
  bool follows(const Step& s) const {
    return s.def && s.def->elementwise && s.inputs.size() == 1 && s.outputs.size() == 1 && twin_.count(s.inputs[0]) > 0;
  }

  void move(Step& s) {
    s.attrs["layout"] = "NHWC";
    s.param = s.def->parse(s.attrs);
    s.inputs[0] = channels_last(s.inputs[0], s.ctx);
    if (s.def->name == "Convolution") s.inputs[1] = transposed(channels_first(s.inputs[1], s.ctx), s.ctx);
    for (size_t k = 1 + (s.def->name == "Convolution"); k < s.inputs.size(); ++k)
      s.inputs[k] = channels_first(s.inputs[k], s.ctx);
    retarget_outputs(s);
    ++plan_.stats.channels_last_ops;
  }

  void follow(Step& s) {
    s.inputs[0] = twin_.at(s.inputs[0]);
    retarget_outputs(s);
  }

  // The step writes NHWC twins of its outputs instead of the outputs.
  void retarget_outputs(Step& s) {
    for (uint32_t& out : s.outputs) {
      Value v = plan_.values[out];
      v.shape = channels_last_shape(v.shape);
      const uint32_t id = add_value(v);
      twin_[out] = id;
      out = id;
    }
  }

  // `v` in NHWC: its twin, or a transpose of it made now.
  uint32_t channels_last(uint32_t v, Context ctx) {
    if (auto it = twin_.find(v); it != twin_.end()) return it->second;
    return twin_[v] = transposed(v, ctx);
  }

  // `v` itself, written by a transpose from its twin the first time a reader needs it.
  uint32_t channels_first(uint32_t v, Context ctx) {
    auto it = twin_.find(v);
    if (it == twin_.end() || restored_.count(v) || produced_.count(v)) return v;
    restored_.insert(v);
    add_transpose(it->second, v, kToFirst, ctx);
    return v;
  }

  // A new NHWC value, transposed from `v` by a step made now.
  uint32_t transposed(uint32_t v, Context ctx) {
    Value t = plan_.values[v];
    t.kind = Value::Kind::Planned;
    t.index = -1;
    t.shape = channels_last_shape(t.shape);
    const uint32_t id = add_value(t);
    add_transpose(v, id, kToLast, ctx);
    produced_.insert(v);  // a value read into NHWC keeps its NCHW original
    return id;
  }

  void add_transpose(uint32_t from, uint32_t to, const char* axes, Context ctx) {
    Step t;
    t.def = &transpose_;
    t.attrs = {{"axes", axes}};
    t.param = transpose_.parse(t.attrs);
    t.name = cat("transpose to ", axes == std::string(kToLast) ? "NHWC" : "NCHW");
    t.ctx = ctx;
    t.inputs = {from};
    t.num_args = 1;
    t.outputs = {to};
    plan_.steps.push_back(std::move(t));
  }

  uint32_t add_value(const Value& v) {
    plan_.values.push_back(v);
    return static_cast<uint32_t>(plan_.values.size() - 1);
  }

  Plan& plan_;
  const op::OpDef& transpose_;
  std::map<uint32_t, uint32_t> twin_;  // value -> its NHWC twin
  std::set<uint32_t> restored_;        // moved values written back by a transpose
  std::set<uint32_t> produced_;        // values whose own producer still writes them
};

}  // namespace

void use_channels_last(Plan& plan) { ChannelsLast(plan).run(); }

}  // namespace braid::symbol::detail
