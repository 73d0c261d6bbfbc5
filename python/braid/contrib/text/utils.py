"""Helpers for preparing text: counting the tokens of a string (``mx.contrib.text.utils``)."""
import collections
import re

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False,
                          counter_to_update=None):
    """Counts the tokens of a string.

    The string is cut wherever `token_delim` or `seq_delim` matches; the empty pieces between
    adjacent delimiters are dropped and every other piece counts as one token. For example, with
    ``token_delim=' '`` and ``seq_delim='\\n'``, ``' Life is great ! \\n life is good . \\n'`` holds
    ten tokens.

    Parameters
    ----------
    source_str : str
        The text to count.
    token_delim : str, default ' '
        What separates two tokens: a regular expression (escape special characters, as in
        ``'\\*'``).
    seq_delim : str, default '\\n'
        What separates two sequences: a regular expression too.
    to_lower : bool, default False
        Whether to lower-case every token before counting it.
    counter_to_update : collections.Counter or None, default None
        A counter to add the counts to (it is changed and returned); None counts into a new one.

    Returns
    -------
    collections.Counter
        The token counts: `counter_to_update` after the update, or a new counter.

    Examples
    --------
    >>> count_tokens_from_str(' Life is great ! \\n life is good . \\n', to_lower=True)
    Counter({'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1, '.': 1})
    """
    # The two delimiters are joined as alternatives of one pattern, as given (not escaped).
    tokens = [tok for tok in re.split(token_delim + "|" + seq_delim, source_str) if tok]
    if to_lower:
        tokens = [tok.lower() for tok in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
