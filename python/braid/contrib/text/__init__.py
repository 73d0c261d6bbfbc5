"""mx.contrib.text: text tokens to indices and to embedding vectors.

``utils.count_tokens_from_str`` counts the tokens of a string; ``vocab.Vocabulary`` indexes them
(unknown token first, then reserved tokens, then by frequency); ``embedding`` gives each indexed
token a vector: pre-trained GloVe and fastText files read from the local disk, a file of your own
(``CustomEmbedding``), or several embeddings joined for one vocabulary (``CompositeEmbedding``).
"""
from . import utils
from . import vocab
from . import embedding

__all__ = ["utils", "vocab", "embedding"]
