"""The CTCLoss operator and gluon.loss.CTCLoss against PyTorch's ctc_loss (Debian's python3-torch):
losses and gradients with either blank, padded or explicit label lengths, data lengths, and the
sequences no alignment fits (loss 0 and no gradient, as MXNet)."""
import numpy as np
import pytest
import torch

import braid as mx


def _torch_ctc(data, labels, data_lengths, blank):
    """Per-sequence losses and d(sum of losses)/d data for data (T, N, C) of scores."""
    x = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    log_probs = torch.log_softmax(x, dim=2)
    targets = torch.tensor([c for seq in labels for c in seq], dtype=torch.long)
    loss = torch.nn.functional.ctc_loss(log_probs, targets, torch.tensor(data_lengths),
                                        torch.tensor([len(s) for s in labels]), blank=blank, reduction="none")
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


def _braid_ctc(data, label, head, **kwargs):
    x = mx.nd.array(data, dtype="float64")
    x.attach_grad()
    extra = [mx.nd.array(v) for v in kwargs.pop("lengths", [])]
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(x, mx.nd.array(label), *extra, **kwargs)
    loss.backward(mx.nd.array(head, dtype="float64"))
    return loss.asnumpy(), x.grad.asnumpy()


@pytest.mark.parametrize("blank_label", ["first", "last"])
def test_losses_and_gradients_match_torch(blank_label):
    rng = np.random.RandomState(0)
    T, N, C = 12, 4, 6
    data = rng.randn(T, N, C)
    shift = 1 if blank_label == "first" else 0
    blank = 0 if blank_label == "first" else C - 1
    pad = 0 if blank_label == "first" else -1
    labels = [[1, 2, 2, 3], [0, 4], [3], [4, 4, 4]]  # repeats need blanks between them
    labels = [[c + shift for c in seq] for seq in labels]
    padded = [seq + [pad] * (4 - len(seq)) for seq in labels]
    head = np.array([1.0, 0.5, 2.0, 1.0])
    loss, grad = _braid_ctc(data, padded, head, blank_label=blank_label)
    want_loss, _ = _torch_ctc(data, labels, [T] * N, blank)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-10)
    # The gradient of sum(head * loss): each sequence's gradient scaled by its head gradient.
    want_grad = np.stack([_torch_ctc(data[:, n:n + 1], [labels[n]], [T], blank)[1][:, 0] * head[n]
                          for n in range(N)], axis=1)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-8, atol=1e-12)


def test_explicit_lengths_match_torch():
    rng = np.random.RandomState(1)
    T, N, C = 10, 3, 5
    data = rng.randn(T, N, C)
    label = [[1, 2, 3], [2, 2, 1], [3, 1, 1]]  # blank last (4); lengths cut them instead of padding
    data_lengths, label_lengths = [10, 7, 5], [3, 2, 1]
    loss, grad = _braid_ctc(data, label, np.ones(N), blank_label="last", use_data_lengths=True,
                            use_label_lengths=True, lengths=[data_lengths, label_lengths])
    want_loss, want_grad = _torch_ctc(data, [label[n][:label_lengths[n]] for n in range(N)], data_lengths, C - 1)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-10)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-8, atol=1e-12)
    assert not grad[7:, 1].any() and not grad[5:, 2].any()  # frames past a sequence's length


def test_a_sequence_longer_than_its_frames_gives_zero():
    data = np.random.RandomState(2).randn(3, 2, 4)
    loss, grad = _braid_ctc(data, [[1, 1, 2], [1, 2, 0]], np.ones(2))  # 1,1,2 needs 4 frames
    assert loss[0] == 0 and not grad[:, 0].any()
    assert loss[1] > 0 and grad[:, 1].any()


def test_gluon_ctc_loss_layouts_and_bad_labels():
    pred = mx.nd.ones((2, 20, 4))
    label = mx.nd.array([[1, 0, -1, -1], [2, 1, 1, -1]])
    ntc = mx.gluon.loss.CTCLoss()(pred, label).asnumpy()
    tnc = mx.gluon.loss.CTCLoss(layout="TNC", label_layout="TN")(pred.swapaxes(0, 1), label.T).asnumpy()
    want, _ = _torch_ctc(np.ones((20, 2, 4)), [[1, 0], [2, 1, 1]], [20, 20], 3)
    np.testing.assert_allclose(ntc, want, rtol=1e-6)
    np.testing.assert_allclose(tnc, want, rtol=1e-6)
    with pytest.raises(mx.base.MXNetError, match="not a class"):
        mx.nd.CTCLoss(mx.nd.ones((5, 1, 4)), mx.nd.array([[4, 1]]), blank_label="last").asnumpy()
