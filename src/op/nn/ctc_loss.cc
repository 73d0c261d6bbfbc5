// CTCLoss (MXNet 1.x, aliases ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss): connectionist
// temporal classification. data (T, N, C) are unnormalized scores, softmax'ed over C here;
// label (N, L) holds each sequence's classes, padded after its end with 0 (blank_label='first':
// class 0 is the blank, labels are 1..C-1) or -1 (blank_label='last': the blank is C-1). Optional
// data_lengths / label_lengths (N,) with use_data_lengths / use_label_lengths. Output: the
// negative log-likelihood per sequence (N,). Forward also keeps d loss / d data in a hidden
// output, as MXNet, computed by the forward-backward recursions in log space; backward scales it
// by each sequence's output gradient. A sequence too long for its frames (its labels plus the
// blanks needed between repeats exceed T) gets loss 0 and gradient 0, as MXNet's warp-ctc.
#include <algorithm>
#include <cmath>
#include <limits>

#include "nn_util.h"

namespace braid::op::detail {
namespace {

struct CtcParam {
  bool use_data_lengths = false, use_label_lengths = false, blank_first = true;
};

std::any parse_ctc(const AttrMap& attrs) {
  ParamReader r(attrs, "CTCLoss");
  CtcParam p;
  p.use_data_lengths = r.get<bool>("use_data_lengths", false);
  p.use_label_lengths = r.get<bool>("use_label_lengths", false);
  p.blank_first = r.get_enum("blank_label", {"first", "last"}, "first") == "first";
  r.finish();
  return p;
}

std::vector<std::string> arguments(const std::any& pa) {
  const auto& p = param<CtcParam>(pa);
  std::vector<std::string> a{"data", "label"};
  if (p.use_data_lengths) a.push_back("data_lengths");
  if (p.use_label_lengths) a.push_back("label_lengths");
  return a;
}

bool infer_ctc_shape(const std::any&, std::vector<Shape>& in, std::vector<Shape>& out) {
  if (in[0].known()) merge_shape(out[1], in[0], "CTCLoss", "gradient");
  if (!in[0].fully_known()) return false;
  const Shape& d = in[0];
  BRAID_CHECK(d.ndim() == 3, "operator CTCLoss: data has shape ", d, " but must be (time, batch, classes)");
  BRAID_CHECK(d[2] >= 2, "operator CTCLoss: data has ", d[2], " classes; it needs the blank and at least one more");
  BRAID_CHECK(in[1].known(), "operator CTCLoss: the label's shape (batch, max label length) is needed");
  BRAID_CHECK(in[1].ndim() == 2 && in[1][0] == d[1], "operator CTCLoss: label has shape ", in[1], " but data ", d,
              " needs (", d[1], ", max label length)");
  for (size_t i = 2; i < in.size(); ++i) merge_shape(in[i], Shape({d[1]}), "CTCLoss", "lengths");
  merge_shape(out[0], Shape({d[1]}), "CTCLoss", "output");
  return true;
}

// The loss and gradient are data's dtype; labels and lengths keep theirs (float or integer).
void infer_ctc_type(const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
  if (in[0] == kDTypeUnknown) return;
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i] == kDTypeUnknown) in[i] = in[0];
  out[0] = out[1] = in[0];
}

// log(exp(a) + exp(b)), exact where either is -inf.
double log_add(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

// One sequence: its frames `frames` of data (stride `step` between frames), its labels, and where
// its gradient goes (same layout); returns the loss.
template <class T>
double sequence_loss(const T* x, T* grad, int64_t frames, int64_t step, int64_t classes, const std::vector<int64_t>& l,
                     int64_t blank) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const int64_t labels = static_cast<int64_t>(l.size()), s_len = 2 * labels + 1;
  int64_t repeats = 0;
  for (int64_t i = 1; i < labels; ++i) repeats += l[i] == l[i - 1];
  if (labels + repeats > frames) return 0;  // no alignment fits: warp-ctc's 0 (gradient stays 0)
  // log-softmax of every frame
  std::vector<double> lp(static_cast<size_t>(frames * classes));
  for (int64_t t = 0; t < frames; ++t) {
    const T* row = x + t * step;
    double m = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t k = 0; k < classes; ++k) m = std::max(m, static_cast<double>(row[k]));
    for (int64_t k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(row[k]) - m);
    for (int64_t k = 0; k < classes; ++k) lp[t * classes + k] = static_cast<double>(row[k]) - m - std::log(sum);
  }
  // The extended label: blank, l0, blank, l1, ..., blank.
  const auto ext = [&](int64_t s) { return s % 2 == 0 ? blank : l[s / 2]; };
  const auto skips = [&](int64_t s) { return s >= 2 && s % 2 == 1 && l[s / 2] != l[s / 2 - 1]; };
  std::vector<double> alpha(static_cast<size_t>(frames * s_len), neg_inf), beta(alpha.size(), neg_inf);
  alpha[0] = lp[blank];
  if (s_len > 1) alpha[1] = lp[ext(1)];
  for (int64_t t = 1; t < frames; ++t)
    for (int64_t s = 0; s < s_len; ++s) {
      double a = alpha[(t - 1) * s_len + s];
      if (s >= 1) a = log_add(a, alpha[(t - 1) * s_len + s - 1]);
      if (skips(s)) a = log_add(a, alpha[(t - 1) * s_len + s - 2]);
      alpha[t * s_len + s] = a + lp[t * classes + ext(s)];
    }
  const int64_t last = (frames - 1) * s_len;
  beta[last + s_len - 1] = lp[(frames - 1) * classes + blank];
  if (s_len > 1) beta[last + s_len - 2] = lp[(frames - 1) * classes + ext(s_len - 2)];
  for (int64_t t = frames - 2; t >= 0; --t)
    for (int64_t s = 0; s < s_len; ++s) {
      double b = beta[(t + 1) * s_len + s];
      if (s + 1 < s_len) b = log_add(b, beta[(t + 1) * s_len + s + 1]);
      if (s + 2 < s_len && skips(s + 2)) b = log_add(b, beta[(t + 1) * s_len + s + 2]);
      beta[t * s_len + s] = b + lp[t * classes + ext(s)];
    }
  const double log_p = s_len > 1 ? log_add(alpha[last + s_len - 1], alpha[last + s_len - 2]) : alpha[last];
  // d(-log p) / d x[t][k] = softmax[t][k] - sum over s with ext(s) = k of alpha * beta / (p * y[t][k]);
  // alpha and beta both hold y[t][ext(s)], so the sum divided by y is alpha + beta - lp in logs.
  std::vector<double> occupancy(static_cast<size_t>(classes));
  for (int64_t t = 0; t < frames; ++t) {
    std::fill(occupancy.begin(), occupancy.end(), neg_inf);
    for (int64_t s = 0; s < s_len; ++s) {
      double& o = occupancy[static_cast<size_t>(ext(s))];
      o = log_add(o, alpha[t * s_len + s] + beta[t * s_len + s]);
    }
    T* g = grad + t * step;
    for (int64_t k = 0; k < classes; ++k) {
      const double y = std::exp(lp[t * classes + k]);  // the softmax
      g[k] = static_cast<T>(y - std::exp(occupancy[static_cast<size_t>(k)] - log_p - lp[t * classes + k]));
    }
  }
  return -log_p;
}

// Every sequence's loss into output 0 and gradient into output 1, sequences in parallel.
template <class T>
void all_losses(const ForwardArgs& a, const std::vector<std::vector<int64_t>>& labels,
                const std::vector<int64_t>& lengths, int64_t blank) {
  const TBlob& data = a.inputs[0];
  const int64_t batch = data.shape[1], classes = data.shape[2];
  const T* x = data.ptr<T>();
  T* grad = a.outputs[1].ptr<T>();
  std::fill(grad, grad + data.size(), T(0));
  std::vector<double> loss(static_cast<size_t>(batch));
#pragma omp parallel for schedule(dynamic) if (batch > 1 && data.size() > (1 << 14))
  for (int64_t n = 0; n < batch; ++n)
    loss[n] =
        sequence_loss(x + n * classes, grad + n * classes, lengths[n], batch * classes, classes, labels[n], blank);
  write_each(a.outputs[0].ptr<T>(), a.req[0], batch, [&](int64_t n) { return static_cast<T>(loss[n]); });
}

// Reads a length or label element of any dtype as an integer.
int64_t element(const TBlob& b, int64_t i) {
  int64_t v = 0;
  BRAID_TYPE_SWITCH(b.dtype, L, "CTCLoss label", { v = static_cast<int64_t>(b.ptr<L>()[i]); });
  return v;
}

void ctc_forward(const CtcParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const TBlob& label = a.inputs[1];
  const int64_t frames = data.shape[0], batch = data.shape[1], classes = data.shape[2], max_len = label.shape[1];
  const int64_t blank = p.blank_first ? 0 : classes - 1, padding = p.blank_first ? 0 : -1;
  const TBlob* data_lengths = p.use_data_lengths ? &a.inputs[2] : nullptr;
  const TBlob* label_lengths = p.use_label_lengths ? &a.inputs[p.use_data_lengths ? 3 : 2] : nullptr;
  // The labels and frame counts, checked before any work.
  std::vector<std::vector<int64_t>> labels(static_cast<size_t>(batch));
  std::vector<int64_t> lengths(static_cast<size_t>(batch), frames);
  for (int64_t n = 0; n < batch; ++n) {
    if (data_lengths) {
      lengths[n] = element(*data_lengths, n);
      BRAID_CHECK(lengths[n] >= 1 && lengths[n] <= frames, "operator CTCLoss: data_lengths[", n, "] = ", lengths[n],
                  " is outside [1, ", frames, "]");
    }
    int64_t len = max_len;
    if (label_lengths) {
      len = element(*label_lengths, n);
      BRAID_CHECK(len >= 0 && len <= max_len, "operator CTCLoss: label_lengths[", n, "] = ", len, " is outside [0, ",
                  max_len, "]");
    } else {
      for (int64_t i = 0; i < max_len; ++i)
        if (element(label, n * max_len + i) == padding) {
          len = i;
          break;
        }
    }
    for (int64_t i = 0; i < len; ++i) {
      const int64_t c = element(label, n * max_len + i);
      // As MXNet, a label equal to the blank is not refused (it counts as a symbol of its own).
      BRAID_CHECK(c >= 0 && c < classes, "operator CTCLoss: label ", c, " of sequence ", n,
                  " is not a class: with blank_label='", p.blank_first ? "first" : "last", "' labels are ",
                  p.blank_first ? 1 : 0, "..", p.blank_first ? classes - 1 : classes - 2, " (pad with ", padding, ")");
      labels[n].push_back(c);
    }
  }
  BRAID_REAL_TYPE_SWITCH(data.dtype, T, "CTCLoss", { all_losses<T>(a, labels, lengths, blank); });
}

void ctc_backward(const BackwardArgs& a) {
  for (size_t i = 1; i < a.in_grads.size(); ++i) zero_grad(a.in_grads[i], a.req[i]);
  const TBlob& data = a.inputs[0];
  const int64_t batch = data.shape[1], classes = data.shape[2];
  BRAID_REAL_TYPE_SWITCH(data.dtype, T, "CTCLoss", {
    const T* grad = a.outputs[1].ptr<T>();
    const T* og = a.out_grads[0].ptr<T>();
    write_each(a.in_grads[0].ptr<T>(), a.req[0], data.size(),
               [=](int64_t i) { return grad[i] * og[i / classes % batch]; });
  });
}

}  // namespace

void register_ctc_loss_ops(Registry& r) {
  OpDef d;
  d.name = "CTCLoss";
  d.doc =
      "Connectionist temporal classification loss of data (time, batch, classes) against label (batch, length): "
      "the negative log-likelihood per sequence, softmax over classes taken here; blank_label 'first' (class 0, "
      "labels padded with 0) or 'last' (class C-1, padded with -1).";
  d.parse = parse_ctc;
  d.list_arguments = arguments;
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_ctc_shape(p, in, out);
  };
  d.infer_type = infer_ctc_type;
  d.cpu.forward = [](const OpContext&, const std::any& p, const ForwardArgs& a) { ctc_forward(param<CtcParam>(p), a); };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) { ctc_backward(a); };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, true}; };
  r.add(std::move(d));
  for (const char* alias : {"ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"}) r.add_alias(alias, "CTCLoss");
}

}  // namespace braid::op::detail
