"""mxnet.metric (also gluon.metric): evaluation metrics, implemented in C++."""
from ._core.metric import EvalMetric, create


def Accuracy(axis=1, name="accuracy"):
    return create("acc", axis=axis, name=name)


def TopKAccuracy(top_k=1, name="top_k_accuracy"):
    return create("top_k_accuracy", top_k=top_k, name=name)


def F1(name="f1", average="macro"):
    return create("f1", name=name, average=average)


def MAE(name="mae"):
    return create("mae", name=name)


def MSE(name="mse"):
    return create("mse", name=name)


def RMSE(name="rmse"):
    return create("rmse", name=name)


def CrossEntropy(eps=1e-12, name="cross-entropy"):
    return create("ce", eps=eps, name=name)


def Loss(name="loss"):
    return create("loss", name=name)


def CompositeEvalMetric(metrics=None, name="composite"):
    if metrics:
        return create([m if isinstance(m, str) else m.name for m in metrics])
    return create("composite", name=name)
