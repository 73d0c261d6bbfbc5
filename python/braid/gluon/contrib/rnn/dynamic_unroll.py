"""dynamic_unroll of MXNet's gluon.contrib.rnn.rnn_cell: runs a recurrent cell over a whole
sequence with the ``foreach`` control-flow operator, so that a symbol (or a hybridized block's
graph) holds one loop whatever the sequence's length, instead of one copy of the cell per step."""
from ...rnn.rnn_cell import _module_of

__all__ = ["dynamic_unroll"]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC", valid_length=None):
    """Runs ``cell`` over ``inputs`` (one array, time axis where ``layout`` says: 'TNC' or
    'NTC') from ``begin_state``; returns (outputs merged in the same layout, last states).

    ``drop_inputs`` / ``drop_outputs``: dropout rates on the inputs and outputs, one mask for all
    steps. ``valid_length`` (batch,): each sequence's length; its states stop changing after its
    last step and its outputs past it are zeros."""
    F = _module_of(inputs)
    axis = layout.find("T")
    if axis < 0:
        raise ValueError("dynamic_unroll: layout %r has no time axis 'T'" % (layout,))
    # foreach walks the first axis: bring time to the front (swapping it with axis 0).
    axes = None
    if axis != 0:
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    if drop_inputs:
        # The mask is shared along time (axis 0 now), as in variational dropout.
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(0,))

    states = list(begin_state) if isinstance(begin_state, (list, tuple)) else [begin_state]
    if valid_length is None:
        def step(x, step_states):
            return cell(x, step_states)
    else:
        # The step number rides along as one more state, to compare with valid_length.
        states.append(F.zeros((1,)))

        def step(x, step_states):
            cell_states, t = step_states[:-1], step_states[-1]
            out, new_states = cell(x, cell_states)
            running = F.broadcast_greater(valid_length, t)
            new_states = [F.where(running, new, old) for new, old in zip(new_states, cell_states)]
            return out, new_states + [t + 1]

    outputs, states = F.contrib.foreach(step, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(0,))
    if axes is not None:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is not None:
        outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
        states = states[:-1]
    return outputs, states
