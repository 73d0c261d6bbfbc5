// UpSampling (MXNet 1.x) of NCHW images by an integer `scale`.
// 'nearest': every pixel repeated scale×scale times; several inputs are each brought to the first
// one's upsampled size (each by its own integer factor) and concatenated along the channels or
// summed (multi_input_mode). 'bilinear': a depthwise Deconvolution of `data` by `weight`
// (num_filter, 1, 2s - s%2, 2s - s%2), stride s, pad ceil((s-1)/2), no bias, which
// mx.init.Bilinear fills with the bilinear kernel, as MXNet does.
#include <cmath>

#include "nn_util.h"
#include "upsampling.h"

namespace braid::op::detail {
namespace {

std::any parse_upsampling(const AttrMap& attrs) {
  ParamReader rd(attrs, "UpSampling");
  UpSamplingParam p;
  p.scale = rd.get<int64_t>("scale");
  p.num_filter = rd.get<int64_t>("num_filter", 0);
  p.bilinear = rd.get_enum("sample_type", {"nearest", "bilinear"}, "") == "bilinear";
  p.sum = rd.get_enum("multi_input_mode", {"concat", "sum"}, "concat") == "sum";
  p.num_args = rd.get<int64_t>("num_args", 1);
  rd.get<int64_t>("workspace", 512);  // MXNet's scratch limit; nothing to bound here
  rd.finish();
  BRAID_CHECK(p.scale >= 1, "operator UpSampling: scale must be a positive integer; got ", p.scale);
  if (!p.bilinear) {
    BRAID_CHECK(p.num_args >= 1, "operator UpSampling: num_args must be at least 1; got ", p.num_args);
    return p;
  }
  BRAID_CHECK(p.num_filter > 0,
              "operator UpSampling: sample_type='bilinear' needs num_filter, the number of "
              "channels of data; got ",
              p.num_filter);
  const int64_t kernel = 2 * p.scale - p.scale % 2, pad = p.scale / 2;  // ceil((scale - 1) / 2)
  const std::string k = cat("(", kernel, ", ", kernel, ")"), s = cat("(", p.scale, ", ", p.scale, ")"),
                    pd = cat("(", pad, ", ", pad, ")");
  p.deconv = &Registry::get().find("Deconvolution");
  p.deconv_param = p.deconv->parse({{"kernel", k},
                                    {"stride", s},
                                    {"pad", pd},
                                    {"num_filter", std::to_string(p.num_filter)},
                                    {"num_group", std::to_string(p.num_filter)},
                                    {"no_bias", "True"}});
  return p;
}

std::vector<std::string> upsampling_arguments(const std::any& pa) {
  const auto& p = param<UpSamplingParam>(pa);
  if (p.bilinear) return {"data", "weight"};
  std::vector<std::string> names;
  for (int64_t i = 0; i < p.num_args; ++i) names.push_back(cat("arg", i));
  return names;
}

bool infer_upsampling_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  const auto& p = param<UpSamplingParam>(pa);
  if (!in[0].fully_known()) return false;
  BRAID_CHECK(in[0].ndim() == 4, "operator UpSampling: input 0 must be an NCHW batch of images; got shape ", in[0]);
  const int64_t n = in[0][0], oh = in[0][2] * p.scale, ow = in[0][3] * p.scale;
  if (p.bilinear) {
    BRAID_CHECK(in[0][1] == p.num_filter, "operator UpSampling: num_filter=", p.num_filter,
                " must equal the channels of data ", in[0]);
    const int64_t kernel = 2 * p.scale - p.scale % 2;
    merge_shape(in[1], Shape({p.num_filter, 1, kernel, kernel}), "UpSampling", "weight");
    merge_shape(out[0], Shape({n, in[0][1], oh, ow}), "UpSampling", "output");
    return true;
  }
  int64_t channels = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    if (!in[k].fully_known()) return false;
    const Shape& s = in[k];
    BRAID_CHECK(s.ndim() == 4 && s[0] == n && s[2] > 0 && s[3] > 0 && oh % s[2] == 0 && ow % s[3] == 0 &&
                    oh / s[2] == ow / s[3],
                "operator UpSampling: input ", k, " of shape ", s, " cannot be upsampled by a whole factor to (", oh,
                ", ", ow, "), the first input's size times scale, with batch ", n);
    BRAID_CHECK(!p.sum || s[1] == in[0][1],
                "operator UpSampling: multi_input_mode='sum' needs the same channels in "
                "every input; input ",
                k, " has shape ", s, ", input 0 ", in[0]);
    channels = p.sum ? s[1] : channels + s[1];
  }
  merge_shape(out[0], Shape({n, channels, oh, ow}), "UpSampling", "output");
  return true;
}

// Calls f(k, channel offset, factor) for each input of a nearest upsampling to output `out`.
template <class F>
void for_each_nearest_input(const UpSamplingParam& p, const std::vector<TBlob>& inputs, const Shape& out, F f) {
  int64_t offset = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    f(k, offset, out[2] / inputs[k].shape[2]);
    if (!p.sum) offset += inputs[k].shape[1];
  }
}

template <class T>
void nearest_forward(const UpSamplingParam& p, const ForwardArgs& a) {
  const Shape& os = a.outputs[0].shape;
  const int64_t oc = os[1], oh = os[2], ow = os[3];
  write_with_req(a.outputs[0].ptr<T>(), os.size(), a.req[0], [&](T* y) {
    if (p.sum) std::fill(y, y + os.size(), T(0));
    for_each_nearest_input(p, a.inputs, os, [&](size_t k, int64_t offset, int64_t f) {
      const Shape& s = a.inputs[k].shape;
      const T* x = a.inputs[k].ptr<T>();
      const int64_t planes = s[0] * s[1];
#pragma omp parallel for schedule(static) if (planes * oh * ow > (1 << 15))
      for (int64_t pl = 0; pl < planes; ++pl) {
        const T* xp = x + pl * s[2] * s[3];
        T* yp = y + ((pl / s[1]) * oc + offset + pl % s[1]) * oh * ow;
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            const T v = xp[(i / f) * s[3] + j / f];
            yp[i * ow + j] = p.sum ? yp[i * ow + j] + v : v;
          }
      }
    });
  });
}

template <class T>
void nearest_backward(const UpSamplingParam& p, const BackwardArgs& a) {
  const Shape& os = a.out_grads[0].shape;
  const int64_t oc = os[1], oh = os[2], ow = os[3];
  const T* dy = a.out_grads[0].ptr<T>();
  for_each_nearest_input(p, a.inputs, os, [&](size_t k, int64_t offset, int64_t f) {
    const Shape& s = a.inputs[k].shape;
    const int64_t planes = s[0] * s[1], h = s[2], w = s[3];
    if (a.req[k] == OpReq::Null) return;
    write_with_req(a.in_grads[k].ptr<T>(), s.size(), a.req[k], [&](T* dx) {
#pragma omp parallel for schedule(static) if (planes * oh * ow > (1 << 15))
      for (int64_t pl = 0; pl < planes; ++pl) {
        T* dp = dx + pl * h * w;
        std::fill(dp, dp + h * w, T(0));
        const T* gp = dy + ((pl / s[1]) * oc + offset + pl % s[1]) * oh * ow;
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) dp[(i / f) * w + j / f] += gp[i * ow + j];
      }
    });
  });
}

}  // namespace

void register_upsampling_ops(Registry& r) {
  OpDef d;
  d.name = "UpSampling";
  d.doc =
      "Upsamples NCHW images by `scale`: 'nearest' repeats pixels (several inputs concatenated or summed), "
      "'bilinear' is a depthwise Deconvolution by a bilinear `weight`.";
  d.parse = parse_upsampling;
  d.list_arguments = upsampling_arguments;
  d.key_var_num_args = "num_args";
  d.infer_shape = infer_upsampling_shape;
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<UpSamplingParam>(pa);
    if (p.bilinear) return p.deconv->kernels(ctx.ctx).forward(ctx, p.deconv_param, a);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "UpSampling", { nearest_forward<T>(p, a); });
  };
  d.cpu.backward = [](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<UpSamplingParam>(pa);
    if (p.bilinear) return p.deconv->kernels(ctx.ctx).backward(ctx, p.deconv_param, a);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "UpSampling", { nearest_backward<T>(p, a); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
