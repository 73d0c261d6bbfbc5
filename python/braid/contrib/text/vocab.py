"""A vocabulary: the two-way map between text tokens and integer indices
(``mx.contrib.text.vocab.Vocabulary``)."""
import collections

__all__ = ["Vocabulary"]

# Every unknown token maps to this index; the unknown token itself is indexed there.
UNKNOWN_IDX = 0


class Vocabulary(object):
    """Indexes text tokens: the unknown token first, then the reserved tokens, then the keys of a
    counter from the most to the least frequent.

    Parameters
    ----------
    counter : collections.Counter or None, default None
        Token frequencies. Its keys are indexed by decreasing frequency, ties in increasing token
        order, while they pass `min_freq` and `most_freq_count`. Keys equal to `unknown_token` or
        to a reserved token keep the index they already have. Tokens can be any hashable values
        (str, int, tuple...) as long as keys, `unknown_token` and `reserved_tokens` are of one type.
    most_freq_count : int or None, default None
        At most this many keys of `counter` are indexed besides the unknown and reserved tokens;
        None indexes every key that passes `min_freq`.
    min_freq : int, default 1
        The least frequency a key needs to be indexed; must be positive.
    unknown_token : hashable, default '<unk>'
        What every token outside the vocabulary stands for; it has index 0.
    reserved_tokens : list or None, default None
        Tokens always indexed, right after `unknown_token` and in the order given (padding,
        sentence start...). They must be distinct and must not include `unknown_token`.

    Examples
    --------
    >>> vocab = Vocabulary(collections.Counter(['b', 'a', 'b']), reserved_tokens=['<pad>'])
    >>> vocab.idx_to_token
    ['<unk>', '<pad>', 'b', 'a']
    >>> vocab.to_indices(['a', 'zzz'])
    [3, 0]
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        assert min_freq > 0, "`min_freq` must be a positive number, got %r." % (min_freq,)
        if reserved_tokens is not None:
            distinct = set(reserved_tokens)
            assert unknown_token not in distinct, \
                "`reserved_tokens` must not contain `unknown_token` %r." % (unknown_token,)
            assert len(distinct) == len(reserved_tokens), \
                "`reserved_tokens` must not contain a token twice: %r." % (reserved_tokens,)

        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + (self._reserved_tokens or [])
        self._token_to_idx = {tok: idx for idx, tok in enumerate(self._idx_to_token)}

        if counter is not None:
            self._index_counter(counter, most_freq_count, min_freq)

    def _index_counter(self, counter, most_freq_count, min_freq):
        """Appends the keys of `counter` that pass the frequency limits."""
        assert isinstance(counter, collections.Counter), \
            "`counter` must be a collections.Counter, got %s." % type(counter).__name__
        special = set(self._idx_to_token)
        # Ties in frequency go by increasing token: sort by token, then (stably) by frequency.
        by_freq = sorted(counter.items(), key=lambda item: item[0])
        by_freq.sort(key=lambda item: item[1], reverse=True)

        # The cap is on the vocabulary's length: keys already indexed (the unknown or a reserved
        # token) add nothing and so do not count toward most_freq_count.
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in by_freq:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._token_to_idx[token] = len(self._idx_to_token)
                self._idx_to_token.append(token)

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict: each indexed token's index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: the indexed tokens, the one of index i at position i."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        """What every token outside the vocabulary stands for (index 0)."""
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """list or None: the reserved tokens, indexed from 1 on, as given."""
        return self._reserved_tokens

    def to_indices(self, tokens):
        """Maps a token, or a list of tokens, to its index (0 for tokens not in the vocabulary).

        A list gives a list; anything else (a tuple too) is one token and gives one int.
        """
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(tok, UNKNOWN_IDX) for tok in tokens]

    def to_tokens(self, indices):
        """Maps an index, or a list of indices, to its token.

        Raises ValueError for an index that is not an int or is past the last token. As in MXNet,
        a negative index counts from the end.
        """
        single = not isinstance(indices, list)
        if single:
            indices = [indices]
        last = len(self._idx_to_token) - 1
        tokens = []
        for idx in indices:
            if not isinstance(idx, int) or idx > last:
                raise ValueError("Token index %r is not valid: the vocabulary's indices go from 0 "
                                 "to %d." % (idx, last))
            tokens.append(self._idx_to_token[idx])
        return tokens[0] if single else tokens
