// The densities of MXNet's sampling distributions, _random_pdf_<name> (alias random_pdf_<name>):
// the (log-)density of each sample under the parameters of its row. A sample array of shape
// P + tail pairs with parameter arrays of shape P (each parameter element serves `tail`
// samples); Dirichlet's alpha is P + (k,) for samples P + tail + (k,). Gradients flow to the
// samples (continuous distributions) and the parameters.
#include <cmath>
#include <limits>

#include "op/op_util.h"
#include "random_pdf.h"

namespace braid::op::detail {
namespace {

/// ψ(x), the derivative of log Γ: recurrence up to 6, then the asymptotic series.
double digamma(double x) {
  double r = 0;
  for (; x < 6; x += 1) r -= 1 / x;
  const double f = 1 / (x * x);
  return r + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

/// log p(x | p[0], p[1]); writes d/dx into g[0] and d/dp[k] into g[k + 1].
using LogPdf = double (*)(double x, const double* p, double* g);

struct PdfDef {
  const char* name;
  std::vector<std::string> params;
  bool discrete;
  LogPdf log_pdf;
};

// The negative binomial in its (n, p) form, n real: failures x before the n-th success.
double log_nbinom(double x, double n, double p, double* dn, double* dp) {
  *dn = digamma(x + n) - digamma(n) + std::log(p);
  *dp = n / p - x / (1 - p);
  return std::lgamma(x + n) - std::lgamma(x + 1) - std::lgamma(n) + n * std::log(p) + x * std::log1p(-p);
}

const std::vector<PdfDef>& pdf_defs() {
  static const std::vector<PdfDef> defs = {
      {"normal",
       {"mu", "sigma"},
       false,
       [](double x, const double* p, double* g) {
         const double z = (x - p[0]) / p[1];
         g[0] = -z / p[1];
         g[1] = z / p[1];
         g[2] = (z * z - 1) / p[1];
         return -0.5 * z * z - std::log(p[1]) - 0.5 * std::log(2 * M_PI);
       }},
      {"uniform",
       {"low", "high"},
       false,
       [](double x, const double* p, double* g) {
         const double w = p[1] - p[0];
         const bool inside = x >= p[0] && x <= p[1];
         g[0] = 0;
         g[1] = inside ? 1 / w : 0;
         g[2] = inside ? -1 / w : 0;
         return inside ? -std::log(w) : kMinusInf;
       }},
      {"gamma",
       {"alpha", "beta"},
       false,
       [](double x, const double* p, double* g) {  // beta is the rate
         g[0] = (p[0] - 1) / x - p[1];
         g[1] = std::log(p[1]) + std::log(x) - digamma(p[0]);
         g[2] = p[0] / p[1] - x;
         return p[0] * std::log(p[1]) + (p[0] - 1) * std::log(x) - p[1] * x - std::lgamma(p[0]);
       }},
      {"exponential",
       {"lam"},
       false,
       [](double x, const double* p, double* g) {
         g[0] = -p[0];
         g[1] = 1 / p[0] - x;
         return std::log(p[0]) - p[0] * x;
       }},
      {"poisson",
       {"lam"},
       true,
       [](double x, const double* p, double* g) {
         g[0] = 0;
         g[1] = x / p[0] - 1;
         return x * std::log(p[0]) - p[0] - std::lgamma(x + 1);
       }},
      {"negative_binomial",
       {"k", "p"},
       true,
       [](double x, const double* p, double* g) {
         g[0] = 0;
         return log_nbinom(x, p[0], p[1], &g[1], &g[2]);
       }},
      {"generalized_negative_binomial",
       {"mu", "alpha"},
       true,
       [](double x, const double* p, double* g) {
         // n = 1/alpha successes with success probability 1/(1 + mu*alpha).
         const double mu = p[0], a = p[1], q = 1 + mu * a;
         double dn, dp;
         const double lp = log_nbinom(x, 1 / a, 1 / q, &dn, &dp);
         g[0] = 0;
         g[1] = dp * -a / (q * q);
         g[2] = dn * -1 / (a * a) + dp * -mu / (q * q);
         return lp;
       }},
  };
  return defs;
}

struct PdfParam {
  bool is_log = false;
};

std::any parse_pdf(const AttrMap& a, const std::string& op) {
  ParamReader rd(a, op);
  PdfParam p{rd.get<bool>("is_log", false)};
  rd.finish();
  return std::any(p);
}

// Every parameter has shape `params`; samples are `params` + more axes (+ `extra` trailing
// axes of the parameters, Dirichlet's k).
void check_shapes(const std::string& op, const Shape& sample, const std::vector<Shape>& params, int extra) {
  for (size_t k = 1; k < params.size(); ++k)
    BRAID_CHECK(params[k] == params[0], "operator ", op, ": parameters of shapes ", params[0], " and ", params[k],
                " differ; give them one shape");
  const Shape& p = params[0];
  const int lead = p.ndim() - extra;
  bool prefix = sample.ndim() >= p.ndim();
  for (int i = 0; prefix && i < lead; ++i) prefix = sample[i] == p[i];
  for (int i = 0; prefix && i < extra; ++i) prefix = sample[sample.ndim() - extra + i] == p[lead + i];
  BRAID_CHECK(prefix, "operator ", op, ": samples of shape ", sample, " do not start with the parameters' shape ", p,
              extra ? " (and end with its last axis)" : "");
}

OpDef pdf_op(const std::string& name, std::vector<std::string> arguments, int extra) {
  OpDef d;
  d.name = "_random_pdf_" + name;
  d.parse = [op = d.name](const AttrMap& a) { return parse_pdf(a, op); };
  d.list_arguments = args(std::move(arguments));
  d.infer_shape = [op = d.name, extra](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                       std::vector<Shape>&) {
    for (const auto& s : in)
      if (!s.fully_known()) return false;
    check_shapes(op, in[0], {in.begin() + 1, in.end()}, extra);
    std::vector<int64_t> dims(in[0].dims().begin(), in[0].dims().end() - extra);
    merge_shape(out[0], Shape(dims), op, "output");
    return true;
  };
  return d;
}

void add_pdf(Registry& r, const PdfDef& def) {
  std::vector<std::string> arguments{"sample"};
  arguments.insert(arguments.end(), def.params.begin(), def.params.end());
  OpDef d = pdf_op(def.name, arguments, 0);
  d.doc = std::string("The density (is_log: its log) of ") + def.name + " samples under per-row parameters.";
  const LogPdf log_pdf = def.log_pdf;
  const size_t np = def.params.size();
  d.cpu.forward = [log_pdf, np, op = d.name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const bool is_log = param<PdfParam>(pa).is_log;
    const int64_t rows = a.inputs[1].size(), tail = a.inputs[0].size() / std::max<int64_t>(rows, 1);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, op.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      for (int64_t i = 0; i < rows; ++i) {
        double p[2] = {0, 0}, g[3];
        for (size_t k = 0; k < np; ++k) p[k] = static_cast<double>(a.inputs[k + 1].ptr<T>()[i]);
        for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
          const double lp = log_pdf(static_cast<double>(x[j]), p, g);
          assign(y[j], a.req[0], static_cast<T>(is_log ? lp : std::exp(lp)));
        }
      }
    });
  };
  d.cpu.backward = [log_pdf, np, discrete = def.discrete, op = d.name](const OpContext&, const std::any& pa,
                                                                       const BackwardArgs& a) {
    const bool is_log = param<PdfParam>(pa).is_log;
    const int64_t rows = a.inputs[1].size(), tail = a.inputs[0].size() / std::max<int64_t>(rows, 1);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, op.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      const T* gy = a.out_grads[0].ptr<T>();
      for (size_t k = 0; k <= np; ++k)
        if (a.req[k] == OpReq::Write)
          std::fill(a.in_grads[k].ptr<T>(), a.in_grads[k].ptr<T>() + a.in_grads[k].size(), T(0));
      for (int64_t i = 0; i < rows; ++i) {
        double p[2] = {0, 0}, g[3], dp[2] = {0, 0};
        for (size_t k = 0; k < np; ++k) p[k] = static_cast<double>(a.inputs[k + 1].ptr<T>()[i]);
        for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
          const double lp = log_pdf(static_cast<double>(x[j]), p, g);
          const double scale = static_cast<double>(gy[j]) * (is_log ? 1.0 : std::exp(lp));
          if (a.req[0] != OpReq::Null && !discrete) a.in_grads[0].ptr<T>()[j] += static_cast<T>(scale * g[0]);
          for (size_t k = 0; k < np; ++k) dp[k] += scale * g[k + 1];
        }
        for (size_t k = 0; k < np; ++k)
          if (a.req[k + 1] != OpReq::Null) a.in_grads[k + 1].ptr<T>()[i] += static_cast<T>(dp[k]);
      }
    });
  };
  r.add(std::move(d));
  r.add_alias(std::string("random_pdf_") + def.name, std::string("_random_pdf_") + def.name);
}

// Dirichlet: log p(x | alpha) = log Γ(Σα) - Σ log Γ(α_i) + Σ (α_i - 1) log x_i over the last axis.
void add_dirichlet(Registry& r) {
  OpDef d = pdf_op("dirichlet", {"sample", "alpha"}, 1);
  d.doc = "The density (is_log: its log) of Dirichlet samples (last axis) under per-row alpha.";
  // Calls visit(row i, sample j, log density) with the gradients (dx, dalpha) of each component.
  auto walk = [](const TBlob& sample, const TBlob& alpha, auto&& visit) {
    BRAID_REAL_TYPE_SWITCH(sample.dtype, T, "_random_pdf_dirichlet", {
      const int64_t k = alpha.shape[alpha.ndim() - 1], rows = alpha.size() / k;
      const int64_t tail = sample.size() / k / std::max<int64_t>(rows, 1);
      const T* x = sample.ptr<T>();
      const T* al = alpha.ptr<T>();
      std::vector<double> dx(static_cast<size_t>(k)), da(static_cast<size_t>(k));
      for (int64_t i = 0; i < rows; ++i) {
        double sum = 0;
        for (int64_t c = 0; c < k; ++c) sum += static_cast<double>(al[i * k + c]);
        for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
          double lp = std::lgamma(sum);
          for (int64_t c = 0; c < k; ++c) {
            const double ac = static_cast<double>(al[i * k + c]), xc = static_cast<double>(x[j * k + c]);
            lp += (ac - 1) * std::log(xc) - std::lgamma(ac);
            dx[static_cast<size_t>(c)] = (ac - 1) / xc;
            da[static_cast<size_t>(c)] = digamma(sum) - digamma(ac) + std::log(xc);
          }
          visit(i, j, k, lp, dx, da);
        }
      }
    });
  };
  d.cpu.forward = [walk](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const bool is_log = param<PdfParam>(pa).is_log;
    BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, "_random_pdf_dirichlet", {
      T* y = a.outputs[0].ptr<T>();
      walk(a.inputs[0], a.inputs[1], [&](int64_t, int64_t j, int64_t, double lp, const auto&, const auto&) {
        assign(y[j], a.req[0], static_cast<T>(is_log ? lp : std::exp(lp)));
      });
    });
  };
  d.cpu.backward = [walk](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const bool is_log = param<PdfParam>(pa).is_log;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_random_pdf_dirichlet", {
      const T* gy = a.out_grads[0].ptr<T>();
      T* gx = a.in_grads[0].ptr<T>();
      T* ga = a.in_grads[1].ptr<T>();
      for (int k = 0; k < 2; ++k)
        if (a.req[k] == OpReq::Write)
          std::fill(a.in_grads[k].ptr<T>(), a.in_grads[k].ptr<T>() + a.in_grads[k].size(), T(0));
      walk(a.inputs[0], a.inputs[1], [&](int64_t i, int64_t j, int64_t k, double lp, const auto& dx, const auto& da) {
        const double scale = static_cast<double>(gy[j]) * (is_log ? 1.0 : std::exp(lp));
        for (int64_t c = 0; c < k; ++c) {
          if (a.req[0] != OpReq::Null) gx[j * k + c] += static_cast<T>(scale * dx[static_cast<size_t>(c)]);
          if (a.req[1] != OpReq::Null) ga[i * k + c] += static_cast<T>(scale * da[static_cast<size_t>(c)]);
        }
      });
    });
  };
  r.add(std::move(d));
  r.add_alias("random_pdf_dirichlet", "_random_pdf_dirichlet");
}

}  // namespace

void register_random_pdf_ops(Registry& r) {
  for (const auto& def : pdf_defs()) add_pdf(r, def);
  add_dirichlet(r);
}

}  // namespace braid::op::detail
