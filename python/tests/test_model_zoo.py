"""gluon.model_zoo.vision: every model of MXNet's list builds and runs; the architectures are
checked against torchvision's (Debian's python3-torchvision) by copying torchvision's weights in
and comparing the outputs, parameter names follow MXNet's naming (the stripped-prefix files of
MXNet's model store and save_parameters' structural names both load), and pretrained=True reads
the local model store."""
import os

import numpy as np
import pytest
import torch
import torchvision

import braid as mx
from braid.gluon.model_zoo import vision
from braid.gluon.model_zoo.vision import get_model

MXNET_MODELS = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1", "resnet18_v2",
                "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2", "vgg11", "vgg13", "vgg16", "vgg19",
                "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn", "alexnet", "inceptionv3", "densenet121",
                "densenet161", "densenet169", "densenet201", "squeezenet1.0", "squeezenet1.1", "mobilenet1.0",
                "mobilenet0.75", "mobilenet0.5", "mobilenet0.25", "mobilenetv2_1.0", "mobilenetv2_0.75",
                "mobilenetv2_0.5", "mobilenetv2_0.25"]


def image_size(name):
    return 299 if "inception" in name else 224


@pytest.mark.parametrize("name", MXNET_MODELS)
def test_every_model_runs(name):
    net = get_model(name, classes=7)
    net.initialize()
    out = net(mx.nd.random.uniform(shape=(1, 3, image_size(name), image_size(name))))
    assert out.shape == (1, 7)
    assert np.isfinite(out.asnumpy()).all()


# (ours, torchvision's, torchvision's arguments): the same architecture, layer for layer.
SAME_AS_TORCHVISION = [("alexnet", "alexnet", {}), ("vgg11_bn", "vgg11_bn", {}), ("squeezenet1.0", "squeezenet1_0", {}),
                       ("squeezenet1.1", "squeezenet1_1", {}), ("densenet121", "densenet121", {}),
                       ("resnet18_v1", "resnet18", {}),
                       ("inceptionv3", "inception_v3", {"aux_logits": False, "init_weights": False})]


@pytest.mark.parametrize("ours, theirs, kwargs", SAME_AS_TORCHVISION)
def test_architecture_matches_torchvision(ours, theirs, kwargs):
    torch.manual_seed(0)
    reference = getattr(torchvision.models, theirs)(**kwargs).eval()
    with torch.no_grad():  # non-trivial batch-norm statistics, so that they are checked too
        for module in reference.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 1.5)
    tensors = [t for k, t in reference.state_dict().items() if not k.endswith("num_batches_tracked")]
    net = get_model(ours)
    net.initialize()
    size = image_size(ours)
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, size, size)).astype(np.float32)
    net(mx.nd.array(x[:1]))  # shapes known
    params = list(net.collect_params().values())
    assert [tuple(p.shape) for p in params] == [tuple(t.shape) for t in tensors]
    for p, t in zip(params, tensors):
        p.set_data(mx.nd.array(t.numpy()))
    with torch.no_grad():
        expected = reference(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), expected, rtol=1e-3, atol=1e-3)


def test_parameter_names_follow_mxnet():
    # MXNet's names: the model's prefix (its class name and how many were made before, e.g.
    # "inception30_" for the first Inception3 of a process), then the layers' own names.
    cases = {"alexnet": ("alexnet", ["conv0_weight", "dense2_bias"]),
             "squeezenet1.1": ("squeezenet", ["conv0_weight", "conv25_bias"]),
             "densenet121": ("densenet", ["conv0_weight", "stage4_conv31_weight"]),
             "inceptionv3": ("inception3", ["conv0_weight", "E2_batchnorm8_running_var"]),
             "mobilenetv2_1.0": ("mobilenetv2", ["features_conv0_weight", "output_pred_weight"]),
             "vgg16_bn": ("vgg", ["conv0_weight", "batchnorm12_gamma"]),
             "resnet50_v2": ("resnetv2", ["batchnorm0_running_mean", "stage4_conv8_weight"])}
    for name, (stem, expected) in cases.items():
        net = get_model(name)
        assert net.prefix.startswith(stem) and net.prefix[len(stem):-1].isdigit(), net.prefix
        names = [n[len(net.prefix):] for n in net.collect_params().keys()]
        for n in expected:
            assert n in names, (name, n, names[:3], names[-3:])


def test_pretrained_parameters_load_from_the_local_store(tmp_path):
    source = get_model("squeezenet1.1")
    source.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(shape=(1, 3, 224, 224))
    expected = source(x).asnumpy()
    # The model store's files hold the parameters under their stripped names ("conv0_weight").
    source.collect_params().save(str(tmp_path / "squeezenet1.1-33ba0f93.params"), strip_prefix=source.prefix)
    loaded = get_model("squeezenet1.1", pretrained=True, root=str(tmp_path))
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5)
    source.save_parameters(str(tmp_path / "mine.params"))  # structural names ("features.0.weight")
    again = get_model("squeezenet1.1")
    again.load_parameters(str(tmp_path / "mine.params"))
    np.testing.assert_allclose(again(x).asnumpy(), expected, rtol=1e-5)
    with pytest.raises(mx.base.MXNetError, match="not in .*empty.*does not download"):
        get_model("squeezenet1.1", pretrained=True, root=str(tmp_path / "empty"))
    from braid.gluon.model_zoo import model_store
    assert model_store.DEFAULT_ROOT == os.path.join(mx.base.data_dir(), "models")  # $MXNET_HOME/models


def test_unknown_models_are_named():
    with pytest.raises(ValueError, match="resnet18_v1"):
        get_model("resnet19")
    assert len(vision._models) == len(MXNET_MODELS)


@pytest.mark.parametrize("name, expected", [
    ("resnet18_v1", ["m_stage1__plus0_output", "m_stage1_activation0_output", "m_stage4_activation1_output",
                     "m_dense0_fwd_output"]),
    ("resnet50_v2", ["m_stage1_activation0_output", "m_stage4__plus2_output", "m_batchnorm1_fwd_output"]),
    ("mobilenetv2_0.5", ["m_features_linearbottleneck0_relu60_relu6_output",
                         "m_features_linearbottleneck2_elemwise_add0_output"]),
    ("inceptionv3", ["m_A1_concat0_output", "m_E2_concat2_output"]),
    ("densenet121", ["m_stage1_concat0_output", "m_stage4_concat15_output"]),
    ("squeezenet1.1", ["m_concat7_output"])])
def test_graph_node_names_are_mxnets_and_unique(name, expected):
    # The names MXNet's hybrid_forward gives its nodes ("_plus0" for a +, "activation0" for
    # F.Activation, "concat0" for a HybridConcurrent's join, the layers' "fwd"), so that
    # get_internals() lookups written for MXNet find the same nodes.
    outputs = get_model(name, prefix="m_")(mx.sym.var("data")).get_internals().list_outputs()
    assert len(set(outputs)) == len(outputs)
    for e in expected:
        assert e in outputs, (e, [o for o in outputs if o.startswith(e[:12])][:10])


@pytest.mark.parametrize("name", ["resnet18_v1", "mobilenetv2_0.25", "densenet121"])
def test_assigning_a_new_output_replaces_the_classifier(name):
    # Fine-tuning as MXNet users do it: net.output = nn.Dense(classes); the forward runs the new one.
    net = get_model(name)
    net.output = mx.gluon.nn.Dense(7)
    net.initialize()
    x = mx.nd.random.uniform(shape=(2, 3, 32, 32) if "densenet" not in name else (1, 3, 224, 224))
    expected = net.output(net.features(x))
    np.testing.assert_allclose(net(x).asnumpy(), expected.asnumpy(), rtol=1e-6)
    assert net(x).shape[1] == 7
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), expected.asnumpy(), rtol=1e-5, atol=1e-6)
    assert net.output.weight.name in net.collect_params().keys()
