// contrib.quantize and contrib.dequantize (MXNet 1.x): float32 data to int8 or uint8 codes over a
// range [min_range, max_range] given as two 1-element arrays, and back. int8 codes are
// zero-centred: x · 127 / max(|min|, |max|), rounded half away from zero and limited to ±127,
// with the range returned as ±max(|min|, |max|). uint8 codes map min..max onto 0..255, rounded
// half up (limited to 0..255, where MXNet leaves values outside the range undefined). Neither
// has a gradient, as in MXNet.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr float kInt8Range = 127;  // min(|int8 min|, int8 max): symmetric codes
constexpr double kUint8Range = 255;

bool is_code_type(DType t) { return t == DType::Int8 || t == DType::UInt8; }

// data, min_range, max_range: the data's shape; each range one element.
bool infer_coded_shapes(std::vector<Shape>& in, std::vector<Shape>& out, const char* op) {
  merge_shape(in[1], Shape{1}, op, "min_range");
  merge_shape(in[2], Shape{1}, op, "max_range");
  merge_shape(out[0], in[0], op, "output");
  merge_shape(in[0], out[0], op, "data");
  for (size_t i = 1; i < out.size(); ++i) merge_shape(out[i], Shape{1}, op, i == 1 ? "min_output" : "max_output");
  return in[0].fully_known();
}

void check_type(DType given, DType wanted, const char* op, const char* what) {
  BRAID_CHECK(given == kDTypeUnknown || given == wanted, "operator ", op, ": ", what, " must be ", dtype_name(wanted),
              ", got ", dtype_name(given));
}

float first(const TBlob& b) { return b.ptr<float>()[0]; }

void register_quantize(Registry& r) {
  OpDef d;
  d.name = "_contrib_quantize";
  d.doc =
      "Quantizes float32 data to int8 (zero-centred) or uint8 codes over [min_range, max_range]; returns "
      "the codes and their range.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "quantize");
    const std::string type = rd.get_enum("out_type", {"int8", "uint8"}, "uint8");
    rd.finish();
    return std::any(type == "int8" ? DType::Int8 : DType::UInt8);
  };
  d.list_arguments = args({"data", "min_range", "max_range"});
  d.num_outputs = [](const std::any&) { return 3; };
  d.list_outputs = [](const std::any&) { return std::vector<std::string>{"output", "min_output", "max_output"}; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_coded_shapes(in, out, "quantize");
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    const char* names[] = {"data", "min_range", "max_range"};
    for (size_t i = 0; i < 3; ++i) {
      check_type(in[i], DType::Float32, "quantize", names[i]);
      in[i] = DType::Float32;
    }
    out[0] = param<DType>(pa);
    out[1] = out[2] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const TBlob& x = a.inputs[0];
    const float lo = first(a.inputs[1]), hi = first(a.inputs[2]);
    const int64_t n = x.size();
    const float* in = x.ptr<float>();
    if (param<DType>(pa) == DType::Int8) {
      const float range = std::max(std::fabs(lo), std::fabs(hi)), scale = kInt8Range / range;
      write_each(a.outputs[0].ptr<int8_t>(), a.req[0], n, [&](int64_t i) {
        const float v = std::min(std::fabs(in[i]) * scale + 0.5f, kInt8Range);
        return static_cast<int8_t>(in[i] < 0 ? -v : in[i] > 0 ? v : 0.f);
      });
      a.outputs[1].ptr<float>()[0] = -range;
      a.outputs[2].ptr<float>()[0] = range;
    } else {
      const float scale = static_cast<float>(kUint8Range / (hi - lo));
      write_each(a.outputs[0].ptr<uint8_t>(), a.req[0], n, [&](int64_t i) {
        return static_cast<uint8_t>(std::clamp((in[i] - lo) * scale + 0.5, 0.0, kUint8Range));
      });
      a.outputs[1].ptr<float>()[0] = lo;
      a.outputs[2].ptr<float>()[0] = hi;
    }
  };
  r.add(std::move(d));
}

void register_dequantize(Registry& r) {
  OpDef d;
  d.name = "_contrib_dequantize";
  d.doc = "float32 values of int8 (zero-centred) or uint8 codes over [min_range, max_range].";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "dequantize");
    rd.get_enum("out_type", {"float32"}, "float32");
    rd.finish();
    return std::any();
  };
  d.list_arguments = args({"data", "min_range", "max_range"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_coded_shapes(in, out, "dequantize");
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    BRAID_CHECK(in[0] == kDTypeUnknown || is_code_type(in[0]), "operator dequantize: data must be int8 or uint8, got ",
                dtype_name(in[0]));
    check_type(in[1], DType::Float32, "dequantize", "min_range");
    check_type(in[2], DType::Float32, "dequantize", "max_range");
    in[1] = in[2] = out[0] = DType::Float32;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const TBlob& q = a.inputs[0];
    const float lo = first(a.inputs[1]), hi = first(a.inputs[2]);
    const int64_t n = q.size();
    float* y = a.outputs[0].ptr<float>();
    if (q.dtype == DType::Int8) {
      const float step = std::max(std::fabs(lo), std::fabs(hi)) / kInt8Range;
      const int8_t* in = q.ptr<int8_t>();
      write_each(y, a.req[0], n, [&](int64_t i) { return in[i] * step; });
    } else {
      BRAID_CHECK(q.dtype == DType::UInt8, "operator dequantize: data must be int8 or uint8, got ",
                  dtype_name(q.dtype));
      const float step = static_cast<float>((hi - lo) / kUint8Range);
      const uint8_t* in = q.ptr<uint8_t>();
      write_each(y, a.req[0], n, [&](int64_t i) { return in[i] * step + lo; });
    }
  };
  r.add(std::move(d));
}

}  // namespace

void register_quantize_ops(Registry& r) {
  register_quantize(r);
  register_dequantize(r);
}

}  // namespace braid::op::detail
