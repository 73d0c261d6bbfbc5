"""Block.save(prefix) and Block.load(prefix) (MXNet 1.x): ``<prefix>-model.json`` records the
block tree (each block's class, name and children's names, and the traced graph of a hybridized
block) and ``<prefix>-model.params`` the parameters. Loading into a model built again in the same
order maps its structural parameter names onto the saved ones, so that blocks whose names
differ from the saved model's (other automatic prefixes) still find their values."""
import json
import os
import tempfile

from .. import ndarray as _nd
from .._core import gluon as _g


def _entry_name(blk, index):
    return type(blk).__name__.lower() + str(index[0])


def save(self, prefix):
    """Writes the structure to <prefix>-model.json and the parameters to <prefix>-model.params."""
    def describe(blk, index, structure):
        mdl = {"orig_name": blk.name}
        structure[_entry_name(blk, index)] = mdl
        if isinstance(blk, _g.HybridBlock):
            graph = blk._traced_symbol() if blk._hybridized else None
            mdl["hybridized"] = bool(graph is not None and graph.list_outputs())
            if mdl["hybridized"]:
                mdl["symbol"] = graph.tojson()
        children = {}
        mdl["children"] = children
        for key, child in blk._children.items():
            index[0] += 1
            children[child.name] = key
            describe(child, index, mdl)

    model = {}
    describe(self, [0], model)
    with open(prefix + "-model.json", "w") as f:
        json.dump(model, f)
    self.save_parameters(prefix + "-model.params")


def load(self, prefix):
    """Loads what save() wrote into this model, built again the same way."""
    with open(prefix + "-model.json") as f:
        model = json.load(f)
    renames = {}

    def walk(blk, index, structure, cur, saved):
        mdl = structure[_entry_name(blk, index)]
        for attr in blk._attribute_params():
            renames[cur + attr] = saved + attr
        for key, child in blk._children.items():
            index[0] += 1
            child_mdl = mdl[_entry_name(child, index)]
            walk(child, index, mdl, cur + key + ".", saved + mdl["children"][child_mdl["orig_name"]] + ".")

    walk(self, [0], model, "", "")
    loaded = _nd.load(prefix + "-model.params")
    renamed = {cur: loaded[saved] for cur, saved in renames.items() if saved in loaded}
    fd, path = tempfile.mkstemp(suffix=".params")
    os.close(fd)
    try:
        _nd.save(path, renamed)
        self.load_parameters(path)
    finally:
        os.remove(path)
