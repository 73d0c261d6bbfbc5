// gluon.model_zoo.vision: the C++ zoo's classes with MXNet's constructor arguments (the Python
// package adds pretrained=, ctx= and root= on top).
#include "bindings.h"
#include "braid/gluon/model_zoo/vision.h"
#include "braid/gluon/nn/concurrent.h"

namespace braid::python {
namespace {

namespace vision = gluon::model_zoo::vision;
using gluon::HybridBlock;
using OptName = std::optional<std::string>;

// Every constructor takes MXNet's block arguments prefix= and params= last.
#define BLOCK_ARGS py::arg("prefix") = py::none(), py::arg("params") = py::none()

template <class Net, class... Args>
std::shared_ptr<Net> make(py::handle params, Args&&... args) {
  auto share = sharing(params);
  return std::make_shared<Net>(std::forward<Args>(args)...);
}

void bind_resnet(py::module_& z) {
  py::enum_<vision::ResidualKind>(z, "ResidualKind")
      .value("basic", vision::ResidualKind::Basic)
      .value("bottleneck", vision::ResidualKind::Bottleneck);
  py::class_<vision::ResidualUnit, HybridBlock, std::shared_ptr<vision::ResidualUnit>>(z, "ResidualUnit",
                                                                                       py::dynamic_attr())
      .def(py::init([](int version, vision::ResidualKind kind, int64_t channels, int64_t stride, bool downsample,
                       int64_t in_channels, OptName prefix, py::object params) {
             return make<vision::ResidualUnit>(params, version, kind, channels, stride, downsample, in_channels,
                                               prefix);
           }),
           py::arg("version"), py::arg("kind"), py::arg("channels"), py::arg("stride"), py::arg("downsample") = false,
           py::arg("in_channels") = 0, BLOCK_ARGS);
  py::class_<vision::ResNet, vision::Classifier, std::shared_ptr<vision::ResNet>>(z, "ResNet", py::dynamic_attr())
      .def(py::init([](int version, vision::ResidualKind kind, std::vector<int64_t> layers,
                       std::vector<int64_t> channels, int64_t classes, bool thumbnail, OptName prefix,
                       py::object params) {
             return make<vision::ResNet>(params, version, kind, layers, channels, classes, thumbnail, prefix);
           }),
           py::arg("version"), py::arg("kind"), py::arg("layers"), py::arg("channels"), py::arg("classes") = 1000,
           py::arg("thumbnail") = false, BLOCK_ARGS);
}

void bind_other_models(py::module_& z) {
  py::class_<vision::AlexNet, vision::Classifier, std::shared_ptr<vision::AlexNet>>(z, "AlexNet", py::dynamic_attr())
      .def(py::init([](int64_t classes, OptName prefix, py::object params) {
             return make<vision::AlexNet>(params, classes, prefix);
           }),
           py::arg("classes") = 1000, BLOCK_ARGS);
  py::class_<vision::VGG, vision::Classifier, std::shared_ptr<vision::VGG>>(z, "VGG", py::dynamic_attr())
      .def(py::init([](std::vector<int64_t> layers, std::vector<int64_t> filters, int64_t classes, bool batch_norm,
                       OptName prefix, py::object params) {
             return make<vision::VGG>(params, layers, filters, classes, batch_norm, prefix);
           }),
           py::arg("layers"), py::arg("filters"), py::arg("classes") = 1000, py::arg("batch_norm") = false, BLOCK_ARGS);
  py::class_<vision::SqueezeNet, vision::Classifier, std::shared_ptr<vision::SqueezeNet>>(z, "SqueezeNet",
                                                                                          py::dynamic_attr())
      .def(py::init([](std::string version, int64_t classes, OptName prefix, py::object params) {
             return make<vision::SqueezeNet>(params, version, classes, prefix);
           }),
           py::arg("version"), py::arg("classes") = 1000, BLOCK_ARGS);
  py::class_<vision::DenseNet, vision::Classifier, std::shared_ptr<vision::DenseNet>>(z, "DenseNet", py::dynamic_attr())
      .def(py::init([](int64_t num_init_features, int64_t growth_rate, std::vector<int64_t> block_config,
                       int64_t bn_size, double dropout, int64_t classes, OptName prefix, py::object params) {
             return make<vision::DenseNet>(params, num_init_features, growth_rate, block_config, bn_size, dropout,
                                           classes, prefix);
           }),
           py::arg("num_init_features"), py::arg("growth_rate"), py::arg("block_config"), py::arg("bn_size") = 4,
           py::arg("dropout") = 0.0, py::arg("classes") = 1000, BLOCK_ARGS);
  py::class_<vision::Inception3, vision::Classifier, std::shared_ptr<vision::Inception3>>(z, "Inception3",
                                                                                          py::dynamic_attr())
      .def(py::init([](int64_t classes, OptName prefix, py::object params) {
             return make<vision::Inception3>(params, classes, prefix);
           }),
           py::arg("classes") = 1000, BLOCK_ARGS);
  py::class_<vision::MobileNet, vision::Classifier, std::shared_ptr<vision::MobileNet>>(z, "MobileNet",
                                                                                        py::dynamic_attr())
      .def(py::init([](double multiplier, int64_t classes, OptName prefix, py::object params) {
             return make<vision::MobileNet>(params, multiplier, classes, prefix);
           }),
           py::arg("multiplier") = 1.0, py::arg("classes") = 1000, BLOCK_ARGS);
  py::class_<vision::MobileNetV2, vision::Classifier, std::shared_ptr<vision::MobileNetV2>>(z, "MobileNetV2",
                                                                                            py::dynamic_attr())
      .def(py::init([](double multiplier, int64_t classes, OptName prefix, py::object params) {
             return make<vision::MobileNetV2>(params, multiplier, classes, prefix);
           }),
           py::arg("multiplier") = 1.0, py::arg("classes") = 1000, BLOCK_ARGS);
  py::class_<vision::LinearBottleneck, HybridBlock, std::shared_ptr<vision::LinearBottleneck>>(z, "LinearBottleneck",
                                                                                               py::dynamic_attr())
      .def(py::init(
               [](int64_t in_channels, int64_t channels, int64_t t, int64_t stride, OptName prefix, py::object params) {
                 return make<vision::LinearBottleneck>(params, in_channels, channels, t, stride, prefix);
               }),
           py::arg("in_channels"), py::arg("channels"), py::arg("t"), py::arg("stride"), BLOCK_ARGS);
  py::class_<vision::ReLU6, HybridBlock, std::shared_ptr<vision::ReLU6>>(z, "RELU6", py::dynamic_attr())
      .def(py::init([](OptName prefix, py::object params) { return make<vision::ReLU6>(params, prefix); }), BLOCK_ARGS);
}

// gluon.contrib.nn's HybridConcurrent and Identity (the zoo's building blocks).
void bind_concurrent(py::module_& n) {
  py::class_<gluon::nn::HybridConcurrent, gluon::nn::HybridSequential, std::shared_ptr<gluon::nn::HybridConcurrent>>(
      n, "HybridConcurrent", py::dynamic_attr())
      .def(py::init([](int axis, OptName prefix, py::object params) {
             return make<gluon::nn::HybridConcurrent>(params, axis, prefix);
           }),
           py::arg("axis") = -1, BLOCK_ARGS)
      .def_property_readonly("axis", &gluon::nn::HybridConcurrent::axis);
  py::class_<gluon::nn::Identity, HybridBlock, std::shared_ptr<gluon::nn::Identity>>(n, "Identity", py::dynamic_attr())
      .def(py::init([](OptName prefix, py::object params) { return make<gluon::nn::Identity>(params, prefix); }),
           BLOCK_ARGS);
}

#undef BLOCK_ARGS

}  // namespace

void bind_gluon_model_zoo(py::module_& m) {
  auto g = m.attr("gluon").cast<py::module_>();
  auto n = g.attr("nn").cast<py::module_>();
  bind_concurrent(n);
  auto z = g.def_submodule("model_zoo");
  py::class_<vision::Classifier, HybridBlock, std::shared_ptr<vision::Classifier>>(z, "Classifier", py::dynamic_attr());
  bind_resnet(z);
  bind_other_models(z);
}

}  // namespace braid::python
