// Gradient-check cases of the basic nn operators (activations, normalization, softmax, outputs, dropout, embedding in
// src/op/nn/).
#include <cmath>

#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

// Moves values away from a kink at 0 (relu, leaky, elu, selu).
void away_from_zero(std::vector<double>& v) {
  for (auto& x : v) x = x < 0 ? x - 0.1 : x + 0.1;
}

// Integer class indices / lengths in [lo, hi] for input `i`, spread deterministically.
std::function<void(std::vector<std::vector<double>>&)> integers(size_t i, int lo, int hi) {
  return [=](std::vector<std::vector<double>>& in) {
    const auto span = static_cast<size_t>(hi - lo + 1);
    for (size_t j = 0; j < in[i].size(); ++j) in[i][j] = lo + static_cast<double>((j * 7 + 3) % span);
  };
}

const auto kAwayFromZero = [](std::vector<std::vector<double>>& in) { away_from_zero(in[0]); };

void add_activation_cases(std::vector<GradCase>& c) {
  for (const char* act : {"relu", "sigmoid", "tanh", "softrelu", "softsign"}) {
    c.push_back({"Activation", {{"act_type", act}}, {Shape({3, 4})}, {}, {}, kAwayFromZero});
    c.push_back({"Activation", {{"act_type", act}}, {Shape({2, 3, 5})}, {{-3.0, 3.0}}, {}, kAwayFromZero});
  }
  for (const char* act : {"leaky", "elu", "selu", "gelu"})
    c.push_back(
        {"LeakyReLU", {{"act_type", act}, {"slope", "0.3"}}, {Shape({3, 5})}, {{-2.0, 2.0}}, {}, kAwayFromZero});
  c.push_back({"LeakyReLU", {}, {Shape({4, 3})}, {}, {}, kAwayFromZero});
  c.push_back({"LeakyReLU",
               {{"act_type", "prelu"}},
               {Shape({2, 3, 4}), Shape({3})},
               {{-1.0, 1.0}, {0.1, 0.5}},
               {},
               kAwayFromZero});
  c.push_back({"LeakyReLU", {{"act_type", "prelu"}}, {Shape({4, 3}), Shape({1})}, {}, {}, kAwayFromZero});
  c.push_back({"LeakyReLU", {{"act_type", "prelu"}}, {Shape({2, 3}), Shape({2, 3})}, {}, {}, kAwayFromZero});
  // gamma per sample and channel (MXNet aligns its axes with the data's 0 and 1), and per sample
  c.push_back({"LeakyReLU", {{"act_type", "prelu"}}, {Shape({2, 3, 2, 2}), Shape({2, 3})}, {}, {}, kAwayFromZero});
  c.push_back({"LeakyReLU", {{"act_type", "prelu"}}, {Shape({2, 3, 2}), Shape({2, 1})}, {}, {}, kAwayFromZero});
  GradCase rrelu{"LeakyReLU", {{"act_type", "rrelu"}}, {Shape({3, 4})}, {}, {}, kAwayFromZero};
  c.push_back(rrelu);
  rrelu.is_train = true;  // random slopes, the same at every forward (the harness reseeds)
  c.push_back(rrelu);
}

void add_normalization_cases(std::vector<GradCase>& c) {
  // Arguments data, gamma, beta; aux moving_mean, moving_var (positive).
  const std::vector<std::pair<double, double>> bn_ranges = {{-1, 1}, {0.5, 1.5}, {-1, 1}, {-1, 1}, {0.5, 1.5}};
  auto bn = [&](op::AttrMap attrs, Shape data, int64_t channels, bool train) {
    GradCase g{"BatchNorm",
               std::move(attrs),
               {data, Shape({channels}), Shape({channels}), Shape({channels}), Shape({channels})},
               bn_ranges};
    g.is_train = train;
    c.push_back(g);
  };
  bn({{"fix_gamma", "False"}}, Shape({4, 3, 5}), 3, true);
  bn({{"fix_gamma", "True"}}, Shape({4, 3, 2, 2}), 3, true);
  bn({{"fix_gamma", "False"}, {"output_mean_var", "True"}}, Shape({6, 3}), 3, true);
  bn({{"fix_gamma", "False"}, {"axis", "-1"}, {"eps", "1e-5"}}, Shape({3, 4, 2}), 2, true);
  bn({{"fix_gamma", "False"}}, Shape({4, 3, 5}), 3, false);
  bn({{"fix_gamma", "False"}, {"use_global_stats", "True"}}, Shape({4, 3, 5}), 3, true);
  GradCase sync{"_contrib_SyncBatchNorm",
                {{"fix_gamma", "False"}, {"output_mean_var", "True"}, {"key", "g"}},
                {Shape({4, 3, 2}), Shape({3}), Shape({3}), Shape({3}), Shape({3})},
                bn_ranges};
  sync.is_train = true;
  c.push_back(sync);
  GradCase with_relu{"_contrib_BatchNormWithReLU",
                     {{"fix_gamma", "False"}},
                     {Shape({4, 3, 5}), Shape({3}), Shape({3}), Shape({3}), Shape({3})},
                     bn_ranges};
  with_relu.is_train = true;
  c.push_back(with_relu);
  GradCase v1{"BatchNorm_v1",
              {{"fix_gamma", "True"}, {"output_mean_var", "True"}},
              {Shape({4, 3, 2}), Shape({3}), Shape({3}), Shape({3}), Shape({3})},
              bn_ranges};
  v1.is_train = true;
  c.push_back(v1);

  c.push_back({"LayerNorm", {}, {Shape({3, 5}), Shape({5}), Shape({5})}, {{-1, 1}, {0.5, 1.5}, {-1, 1}}});
  c.push_back({"LayerNorm", {{"axis", "1"}, {"eps", "1e-3"}}, {Shape({2, 4, 3}), Shape({4}), Shape({4})}});
  c.push_back({"LayerNorm", {{"axis", "0"}, {"output_mean_var", "True"}}, {Shape({5, 3}), Shape({5}), Shape({5})}});

  c.push_back({"GroupNorm", {{"num_groups", "2"}}, {Shape({2, 4, 3}), Shape({2}), Shape({2})}});
  c.push_back({"GroupNorm",
               {{"num_groups", "3"}, {"output_mean_var", "True"}, {"eps", "1e-3"}},
               {Shape({2, 6, 2, 2}), Shape({3}), Shape({3})}});
  c.push_back({"InstanceNorm", {}, {Shape({2, 3, 4}), Shape({3}), Shape({3})}});
  c.push_back({"InstanceNorm", {{"eps", "1e-5"}}, {Shape({1, 2, 2, 3}), Shape({2}), Shape({2})}});
  // The hidden output holds the norms for backward.
  for (const char* mode : {"instance", "channel", "spatial"}) {
    GradCase l2{"L2Normalization", {{"mode", mode}}, {Shape({2, 3, 4})}};
    l2.visible_outputs_only = true;
    c.push_back(l2);
    l2.attrs["eps"] = "1e-3";
    l2.shapes = {Shape({2, 3, 2, 2})};
    c.push_back(l2);
  }
}

void add_softmax_cases(std::vector<GradCase>& c) {
  for (const char* op : {"softmax", "log_softmax", "softmin"}) {
    c.push_back({op, {}, {Shape({3, 5})}});
    c.push_back({op, {{"axis", "1"}}, {Shape({2, 4, 3})}});
    c.push_back({op, {{"axis", "0"}, {"temperature", "2.5"}}, {Shape({4, 3})}});
  }
  c.push_back({"softmax", {{"use_length", "True"}}, {Shape({3, 5}), Shape({3})}, {}, {1}, integers(1, 1, 5)});
  c.push_back({"log_softmax",
               {{"axis", "0"}, {"use_length", "True"}},
               {Shape({4, 2}), Shape({2})},
               {},
               {1},
               integers(1, 1, 4)});
  c.push_back({"softmax", {{"dtype", "float64"}}, {Shape({2, 3})}});
  c.push_back({"SoftmaxActivation", {}, {Shape({2, 3, 2})}});
  c.push_back({"SoftmaxActivation", {{"mode", "channel"}}, {Shape({2, 3, 2, 2})}});
  c.push_back({"softmax_cross_entropy", {}, {Shape({3, 4}), Shape({3})}, {}, {1}, integers(1, 0, 3)});
}

void add_layer_cases(std::vector<GradCase>& c) {
  c.push_back({"Flatten", {}, {Shape({2, 3, 4})}});
  // Sequence ops, time-major and batch-major, with lengths 1 and 3 (a gradient only to the data).
  const auto lengths = [](auto& in) { in[1] = {1, 3}; };
  for (const char* op : {"SequenceMask", "SequenceReverse", "SequenceLast"}) {
    c.push_back({op, {}, {Shape({4, 2, 3})}});
    c.push_back({op, {{"use_sequence_length", "True"}}, {Shape({4, 2, 3}), Shape({2})}, {}, {1}, lengths});
  }
  c.push_back({"SequenceMask",
               {{"use_sequence_length", "True"}, {"axis", "1"}, {"value", "-1"}},
               {Shape({2, 4, 3}), Shape({2})},
               {},
               {1},
               lengths});
  c.push_back({"SequenceLast",
               {{"use_sequence_length", "True"}, {"axis", "1"}},
               {Shape({2, 4}), Shape({2})},
               {},
               {1},
               lengths});
  // LRN's hidden output (tmp_norm) gets no gradient, as in MXNet.
  GradCase lrn{"LRN", {{"nsize", "3"}, {"alpha", "0.5"}, {"beta", "0.75"}, {"knorm", "1.5"}}, {Shape({2, 5, 2, 3})}};
  lrn.visible_outputs_only = true;
  c.push_back(lrn);
  lrn.attrs = {{"nsize", "4"}, {"alpha", "0.3"}};  // an even window is not centred
  lrn.shapes = {Shape({1, 6, 2, 2})};
  c.push_back(lrn);
  c.push_back({"Embedding",
               {{"input_dim", "5"}, {"output_dim", "4"}},
               {Shape({2, 3}), Shape({5, 4})},
               {},
               {0},
               integers(0, 0, 4)});
  c.push_back({"_contrib_SparseEmbedding",
               {{"input_dim", "5"}, {"output_dim", "4"}, {"deterministic", "True"}},
               {Shape({2, 3}), Shape({5, 4})},
               {},
               {0},
               integers(0, 0, 4)});
  GradCase drop{"Dropout", {{"p", "0.3"}}, {Shape({4, 5})}};
  drop.is_train = true;
  c.push_back(drop);
  drop.attrs = {{"p", "0.5"}, {"axes", "(1,)"}};
  drop.shapes = {Shape({3, 4, 2})};
  c.push_back(drop);
  c.push_back({"Dropout", {{"p", "0.4"}, {"mode", "always"}}, {Shape({6})}});
  c.push_back({"Dropout", {}, {Shape({2, 3})}});  // inference: identity

  // The output layers' backward is the gradient of their implied loss, not of their output, so
  // the harness' finite differences of the outputs do not apply: these entries only run forward
  // and backward. loss_output_test.cc checks their gradients against finite differences of the
  // losses themselves.
  c.push_back({"SoftmaxOutput", {}, {Shape({3, 4}), Shape({3})}, {}, {0, 1}, integers(1, 0, 3)});
  for (const char* op : {"LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput"})
    c.push_back({op, {}, {Shape({3, 2}), Shape({3, 2})}, {}, {0, 1}});
  c.push_back({"SVMOutput", {}, {Shape({3, 4}), Shape({3})}, {}, {0, 1}, integers(1, 0, 3)});
}

// Resampling: UpSampling, GridGenerator, BilinearSampler, SpatialTransformer, ROI pooling,
// Correlation. Grid values
// stay clear of whole pixel positions, where bilinear sampling has kinks.
void add_resampling_cases(std::vector<GradCase>& c) {
  c.push_back({"UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}}, {Shape({1, 2, 2, 3})}});
  c.push_back({"UpSampling",
               {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}},
               {Shape({2, 2, 2, 2}), Shape({2, 1, 1, 1})}});
  c.push_back({"UpSampling",
               {{"scale", "1"}, {"sample_type", "nearest"}, {"num_args", "2"}, {"multi_input_mode", "sum"}},
               {Shape({1, 2, 4, 4}), Shape({1, 2, 2, 2})}});
  c.push_back({"UpSampling",
               {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_filter", "2"}},
               {Shape({1, 2, 3, 3}), Shape({2, 1, 4, 4})}});
  c.push_back({"GridGenerator", {{"transform_type", "affine"}, {"target_shape", "(3, 4)"}}, {Shape({2, 6})}});
  c.push_back({"GridGenerator", {{"transform_type", "warp"}}, {Shape({1, 2, 3, 4})}});
  c.push_back({"BilinearSampler", {}, {Shape({2, 2, 4, 5}), Shape({2, 2, 3, 3})}, {{-1, 1}, {-1.1, 1.1}}});
  c.push_back({"SpatialTransformer",
               {{"target_shape", "(3, 3)"}},
               {Shape({2, 2, 4, 4}), Shape({2, 6})},
               {{-1, 1}, {-0.6, 0.6}}});
  // Boxes (input 1, no gradient): in image 1 and 0, at half the feature map's scale.
  const auto boxes = [](std::vector<std::vector<double>>& in) {
    in[1] = {1, 0.5, 1.2, 7.3, 9.1, 0, 3.1, 0.2, 8.8, 5.5};
  };
  c.push_back({"ROIPooling",
               {{"pooled_size", "(2, 3)"}, {"spatial_scale", "0.5"}},
               {Shape({2, 2, 6, 5}), Shape({2, 5})},
               {},
               {1},
               boxes});
  c.push_back({"_contrib_ROIAlign",
               {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}, {"sample_ratio", "2"}},
               {Shape({2, 2, 6, 5}), Shape({2, 5})},
               {},
               {1},
               boxes});
  c.push_back(
      {"_contrib_ROIAlign",
       {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "True"}, {"aligned", "True"}},
       {Shape({2, 8, 6, 5}), Shape({2, 5})},
       {},
       {1},
       boxes});
  c.push_back({"_contrib_RROIAlign",
               {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}, {"sampling_ratio", "2"}},
               {Shape({2, 2, 6, 5}), Shape({2, 6})},
               {},
               {1},
               [](std::vector<std::vector<double>>& in) {  // (batch, center x, center y, w, h, angle)
                 in[1] = {1, 4.5, 5.2, 4.3, 6.1, 30, 0, 5.1, 4.2, 5.8, 3.5, -75};
               }});
  c.push_back({"im2col", {{"kernel", "(2, 3)"}, {"stride", "(1, 2)"}, {"pad", "(1, 1)"}}, {Shape({2, 2, 4, 5})}});
  c.push_back({"col2im", {{"kernel", "(2, 2)"}, {"dilate", "(2, 1)"}, {"output_size", "(4, 3)"}}, {Shape({1, 8, 4})}});
  c.push_back({"im2col", {{"kernel", "(3,)"}, {"dilate", "(2,)"}}, {Shape({1, 2, 7})}});
  // Attention products: 2 heads of size 2, sequences of 3 (queries) and 4 (keys), batch 2.
  c.push_back({"_contrib_interleaved_matmul_selfatt_qk", {{"heads", "2"}}, {Shape({3, 2, 12})}});
  c.push_back({"_contrib_interleaved_matmul_selfatt_valatt", {{"heads", "2"}}, {Shape({3, 2, 12}), Shape({4, 3, 3})}});
  c.push_back({"_contrib_interleaved_matmul_encdec_qk", {{"heads", "2"}}, {Shape({3, 2, 4}), Shape({4, 2, 8})}});
  c.push_back({"_contrib_interleaved_matmul_encdec_valatt", {{"heads", "2"}}, {Shape({4, 2, 8}), Shape({4, 3, 4})}});
  c.push_back({"_contrib_PSROIPooling",
               {{"pooled_size", "2"}, {"output_dim", "2"}, {"spatial_scale", "0.5"}},
               {Shape({2, 8, 6, 5}), Shape({2, 5})},
               {},
               {1},
               boxes});
  c.push_back({"_contrib_AdaptiveAvgPooling2D", {{"output_size", "(2, 3)"}}, {Shape({2, 2, 5, 4})}});
  c.push_back({"_contrib_BilinearResize2D", {{"height", "5"}, {"width", "3"}}, {Shape({1, 2, 3, 4})}});
  c.push_back({"_contrib_BilinearResize2D",
               {{"scale_height", "2"}, {"scale_width", "0.5"}, {"align_corners", "False"}},
               {Shape({1, 2, 3, 4})}});
  c.push_back({"Correlation",
               {{"kernel_size", "3"}, {"max_displacement", "1"}, {"pad_size", "1"}},
               {Shape({2, 2, 5, 5}), Shape({2, 2, 5, 5})}});
  c.push_back(
      {"Correlation",
       {{"max_displacement", "2"}, {"stride2", "2"}, {"stride1", "2"}, {"pad_size", "2"}, {"is_multiply", "False"}},
       {Shape({1, 3, 4, 5}), Shape({1, 3, 4, 5})}});
}

// Non-maximum suppression: the kept rows' gradients go back to their input rows. Scores, overlaps
// and class ids (not whole numbers, which truncate to the class) stay clear of every threshold.
void add_box_cases(std::vector<GradCase>& c) {
  GradCase by_class{"_contrib_box_nms", {{"overlap_thresh", "0.5"}, {"id_index", "0"}}, {Shape({2, 4, 6})}};
  by_class.fill = [](std::vector<std::vector<double>>& in) {
    in[0] = {0.5, 0.9, 0,   0,   2,   2,    // kept
             0.5, 0.7, 0.1, 0.1, 2.1, 2.1,  // suppressed by the first (IoU 0.82)
             1.5, 0.8, 0.2, 0,   2.2, 2,    // another class: kept
             0.5, -.5, 5,   5,   6,   6,    // score below valid_thresh
             2.5, 0.3, 1,   1,   3,   4,    // batch 1: suppressed by its third row (IoU 0.6)
             2.5, 0.6, 5,   5,   7,   7,    // kept
             2.5, .45, 1.5, 1,   3.5, 4,    // kept
             2.5, 0.2, 8,   0,   9,   1};   // kept
  };
  by_class.visible_outputs_only = true;
  c.push_back(by_class);
  // Rows (score, x, y, width, height) under two leading axes; topk drops the third best of each batch.
  GradCase centered{"_contrib_box_nms",
                    {{"coord_start", "1"},
                     {"score_index", "0"},
                     {"topk", "2"},
                     {"overlap_thresh", "0.3"},
                     {"force_suppress", "True"},
                     {"in_format", "center"},
                     {"out_format", "center"}},
                    {Shape({2, 1, 3, 5})}};
  centered.fill = [](std::vector<std::vector<double>>& in) {
    in[0] = {0.9, 1, 1, 2, 2, 0.5, 1.2, 1.1, 2, 2, 0.7, 5, 5, 1, 1,  //
             0.2, 3, 3, 2, 2, 0.4, 3.5, 3,   2, 2, 0.1, 9, 9, 1, 1};
  };
  centered.visible_outputs_only = true;
  c.push_back(centered);
}

// The fused RNN: data (T, N, I), the packed weights, the initial states; hidden output: saved state.
GradCase rnn_case(const std::string& mode, int64_t layers, bool bidirectional, bool state_outputs) {
  const int64_t T = 3, N = 2, I = 3, H = 2, D = bidirectional ? 2 : 1;
  const int64_t G = mode == "lstm" ? 4 : mode == "gru" ? 3 : 1;
  int64_t size = 0;
  for (int64_t l = 0; l < layers; ++l) size += D * G * H * ((l == 0 ? I : D * H) + H + 2);
  GradCase g{"RNN",
             {{"mode", mode},
              {"state_size", std::to_string(H)},
              {"num_layers", std::to_string(layers)},
              {"bidirectional", bidirectional ? "True" : "False"},
              {"state_outputs", state_outputs ? "True" : "False"}},
             {Shape({T, N, I}), Shape({size}), Shape({layers * D, N, H})}};
  if (mode == "lstm") g.shapes.push_back(Shape({layers * D, N, H}));
  g.visible_outputs_only = true;
  return g;
}

void add_rnn_cases(std::vector<GradCase>& c) {
  c.push_back(rnn_case("lstm", 2, true, true));
  c.push_back(rnn_case("lstm", 1, false, false));
  c.push_back(rnn_case("gru", 2, true, true));
  c.push_back(rnn_case("gru", 1, false, false));
  c.push_back(rnn_case("rnn_tanh", 2, false, true));
  GradCase relu = rnn_case("rnn_relu", 1, true, true);
  relu.fill = kAwayFromZero;
  c.push_back(relu);
  // Sequences of 3 and 1 steps: the second one's state stops after its first step.
  GradCase lengths = rnn_case("lstm", 1, true, true);
  lengths.attrs["use_sequence_length"] = "True";
  lengths.shapes.push_back(Shape({2}));
  lengths.skip = {4};
  lengths.fill = [](std::vector<std::vector<double>>& in) { in[4] = {3, 1}; };
  c.push_back(lengths);
  // Dropout between layers, in training.
  GradCase dropped = rnn_case("gru", 2, false, true);
  dropped.attrs["p"] = "0.4";
  dropped.is_train = true;
  c.push_back(dropped);
}

}  // namespace

std::vector<GradCase> nn_basic_grad_cases() {
  std::vector<GradCase> c;
  add_activation_cases(c);
  add_normalization_cases(c);
  add_softmax_cases(c);
  add_layer_cases(c);
  add_rnn_cases(c);
  add_resampling_cases(c);
  add_box_cases(c);
  // CTCLoss: labels 1..3 with the blank first; labels 0..2, explicit lengths and the blank last.
  GradCase ctc{"CTCLoss", {}, {Shape({5, 2, 4}), Shape({2, 2})}, {}, {1}, integers(1, 1, 3)};
  ctc.visible_outputs_only = true;
  c.push_back(ctc);
  ctc = {"CTCLoss",
         {{"blank_label", "last"}, {"use_data_lengths", "True"}, {"use_label_lengths", "True"}},
         {Shape({6, 2, 4}), Shape({2, 3}), Shape({2}), Shape({2})},
         {},
         {1, 2, 3},
         [](std::vector<std::vector<double>>& in) {
           in[1] = {0, 1, 1, 2, 0, 2};  // 0 1 1 (needs 4 frames) and 2 0
           in[2] = {6, 4};
           in[3] = {3, 2};
         }};
  ctc.visible_outputs_only = true;
  c.push_back(ctc);
  return c;
}

}  // namespace braid::test
