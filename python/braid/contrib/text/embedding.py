"""Token embeddings (``mx.contrib.text.embedding``): pre-trained GloVe and fastText vectors,
vectors from a file of your own, and several embeddings joined for one vocabulary.

Embeddings with pre-trained files are registered by lower-case class name: :func:`create` makes
one by name and :func:`get_pretrained_file_names` lists their files. Braid reads pre-trained files
from the local disk only (see ``_TokenEmbedding._get_pretrained_file``).
"""
import warnings

from . import _pretrained_files
from ._token_embedding import _TokenEmbedding
from .vocab import Vocabulary
from ... import ndarray as nd

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText",
           "CustomEmbedding", "CompositeEmbedding"]

_REGISTRY = {}  # lower-case class name -> embedding class


def register(embedding_cls):
    """Registers an embedding class under its lower-case name, for :func:`create` and
    :func:`get_pretrained_file_names`; returns the class, so it serves as a decorator.

    Examples
    --------
    >>> @mx.contrib.text.embedding.register
    ... class MyEmbed(mx.contrib.text.embedding._TokenEmbedding):
    ...     pretrained_file_name_sha1 = {}
    >>> type(mx.contrib.text.embedding.create('myembed'))
    <class 'MyEmbed'>
    """
    assert isinstance(embedding_cls, type) and issubclass(embedding_cls, _TokenEmbedding), \
        "Only subclasses of _TokenEmbedding can be registered as token embeddings."
    name = embedding_cls.__name__.lower()
    if name in _REGISTRY:
        old = _REGISTRY[name]
        warnings.warn("New token embedding %s.%s registered with name %s is overriding existing "
                      "token embedding %s.%s" % (embedding_cls.__module__, embedding_cls.__name__,
                                                 name, old.__module__, old.__name__),
                      UserWarning, stacklevel=2)
    _REGISTRY[name] = embedding_cls
    return embedding_cls


def create(embedding_name, **kwargs):
    """Makes a registered token embedding by name (case-insensitive), passing it `kwargs`.

    For example ``create('glove', pretrained_file_name='glove.6B.50d.txt')``. An embedding
    instance is returned as it is (no `kwargs` allowed then). An unregistered name raises
    AssertionError, as in MXNet.
    """
    if isinstance(embedding_name, _TokenEmbedding):
        assert not kwargs, "token embedding is already an instance; arguments are invalid."
        return embedding_name
    assert isinstance(embedding_name, str), "token embedding must be given by name (a str)."
    name = embedding_name.lower()
    assert name in _REGISTRY, \
        "%s is not registered. Please register with token embedding.register first " \
        "(registered: %s)" % (name, ", ".join(sorted(_REGISTRY)))
    return _REGISTRY[name](**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pre-trained files each registered embedding can load.

    Parameters
    ----------
    embedding_name : str or None, default None
        A registered name, as spelt in the registry (lower case: 'glove', 'fasttext').

    Returns
    -------
    list of str or dict
        The file names of `embedding_name`; for None, a dict from every registered name to its
        file names.

    Raises
    ------
    KeyError
        `embedding_name` is not registered.
    """
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in _REGISTRY.items()}
    if embedding_name not in _REGISTRY:
        raise KeyError("Cannot find `embedding_name` %s. Use `get_pretrained_file_names("
                       "embedding_name=None).keys()` to get all the valid embedding names."
                       % embedding_name)
    return list(_REGISTRY[embedding_name].pretrained_file_name_sha1)


class _PretrainedEmbedding(_TokenEmbedding):
    """What GloVe and FastText share: load a named file from the local disk, space-separated,
    then optionally narrow it to a vocabulary."""

    def __init__(self, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary,
                 **kwargs):
        cls = type(self)
        cls._check_pretrained_file_names(pretrained_file_name)
        super(_PretrainedEmbedding, self).__init__(**kwargs)
        path = cls._get_pretrained_file(embedding_root, pretrained_file_name)
        self._load_embedding(path, " ", init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


@register
class GloVe(_PretrainedEmbedding):
    """The GloVe word vectors (Pennington, Socher and Manning, 2014,
    https://nlp.stanford.edu/projects/glove/; licence: PDDL).

    The file is read from ``<embedding_root>/glove/<pretrained_file_name>``; where only the zip
    archive MXNet would download sits there (e.g. ``glove.6B.zip``), it is unpacked first. Braid
    does not download: a missing file raises FileNotFoundError naming the path and the address of
    the archive.

    Parameters
    ----------
    pretrained_file_name : str, default 'glove.840B.300d.txt'
        One of ``get_pretrained_file_names('glove')``.
    embedding_root : str or None, default None
        The folder holding the ``glove`` folder; None means ``$MXNET_HOME/embeddings``, else
        ``~/.mxnet/embeddings``.
    init_unknown_vec : callable, default mx.nd.zeros
        Called as ``init_unknown_vec(shape=vec_len)`` for the unknown token's vector.
    vocabulary : Vocabulary or None, default None
        Index the tokens of this vocabulary (with their GloVe vectors) instead of every token of
        the file.
    **kwargs
        `unknown_token` and `reserved_tokens`, as for Vocabulary.
    """

    pretrained_file_name_sha1 = _pretrained_files.GLOVE_FILES

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        # 'glove.6B.50d.txt' comes in 'glove.6B.zip'; the 42B and 840B files have an archive each.
        corpus = pretrained_file_name.split(".")[1]
        if corpus in ("42B", "840B"):
            return "glove.%s.300d.zip" % corpus
        if corpus == "twitter":
            return "glove.twitter.27B.zip"
        return "glove.%s.zip" % corpus

    def __init__(self, pretrained_file_name="glove.840B.300d.txt", embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super(GloVe, self).__init__(pretrained_file_name, embedding_root, init_unknown_vec,
                                    vocabulary, **kwargs)


@register
class FastText(_PretrainedEmbedding):
    """The fastText word vectors (Bojanowski et al., 2017; Joulin et al., 2017; for the
    'wiki.multi.*' files Conneau et al., 2017; https://fasttext.cc/; licence: CC BY-SA 3.0).

    The file is read from ``<embedding_root>/fasttext/<pretrained_file_name>``; where only the
    zip archive MXNet would download sits there (``wiki.en.vec`` comes in ``wiki.en.zip``), it is
    unpacked first. Braid does not download: a missing file raises FileNotFoundError naming the
    path and the address of the archive. The header line of a .vec file is skipped.

    Parameters
    ----------
    pretrained_file_name : str, default 'wiki.simple.vec'
        One of ``get_pretrained_file_names('fasttext')``.
    embedding_root : str or None, default None
        The folder holding the ``fasttext`` folder; None means ``$MXNET_HOME/embeddings``, else
        ``~/.mxnet/embeddings``.
    init_unknown_vec : callable, default mx.nd.zeros
        Called as ``init_unknown_vec(shape=vec_len)`` for the unknown token's vector.
    vocabulary : Vocabulary or None, default None
        Index the tokens of this vocabulary (with their fastText vectors) instead of every token
        of the file.
    **kwargs
        `unknown_token` and `reserved_tokens`, as for Vocabulary.
    """

    pretrained_file_name_sha1 = _pretrained_files.FASTTEXT_FILES

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name.rsplit(".", 1)[0] + ".zip"

    def __init__(self, pretrained_file_name="wiki.simple.vec", embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super(FastText, self).__init__(pretrained_file_name, embedding_root, init_unknown_vec,
                                       vocabulary, **kwargs)


class CustomEmbedding(_TokenEmbedding):
    """Token vectors from a text file of your own.

    Each line holds a token and its vector, separated by `elem_delim`:
    ``token<ed>v1<ed>v2<ed>...<ed>vk``, with the same k on every line.

    Parameters
    ----------
    pretrained_file_path : str
        The file to read.
    elem_delim : str, default ' '
        What separates the token and the numbers of a line.
    encoding : str, default 'utf8'
        The file's text encoding.
    init_unknown_vec : callable, default mx.nd.zeros
        Called as ``init_unknown_vec(shape=vec_len)`` for the unknown token's vector, unless the
        file has a line for `unknown_token`.
    vocabulary : Vocabulary or None, default None
        Index the tokens of this vocabulary (with their vectors from the file) instead of every
        token of the file.
    **kwargs
        `unknown_token` and `reserved_tokens`, as for Vocabulary.
    """

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super(CustomEmbedding, self).__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of a vocabulary, each with the concatenation of its vectors in one or more
    embeddings.

    A token an embedding lacks gets that embedding's unknown vector in its part; the unknown
    token (index 0) gets the embeddings' unknown vectors.

    Parameters
    ----------
    vocabulary : Vocabulary
        The tokens to index, with its indices.
    token_embeddings : embedding or list of embeddings
        The embeddings whose vectors are joined, in this order.
    """

    def __init__(self, vocabulary, token_embeddings):
        assert isinstance(vocabulary, Vocabulary), \
            "`vocabulary` must be a mxnet.contrib.text.vocab.Vocabulary, got %s." \
            % type(vocabulary).__name__
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embed in token_embeddings:
            assert isinstance(embed, _TokenEmbedding), \
                "`token_embeddings` must be a token embedding or a list of them, got %s." \
                % type(embed).__name__
        # The indexing is the vocabulary's; Vocabulary.__init__ is deliberately not run.
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
