"""examples/python/lstm_language_model.py on a text file made here: sentences drawn at random from
five fixed ones. The best any model can do on held-out text is the drawing process's own
perplexity, computed here from the sentences; the example must get close to it (it learned the
sentences) and not below it (which would mean it saw the words it predicts)."""
import math
import os
import random
import re
import subprocess
import sys

from conftest import BUILD_DIR

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python",
                       "lstm_language_model.py")
SENTENCES = ["the cat sat on the mat", "a dog ran in the park", "my bird sang a song", "the fish swam in the lake",
             "a cow ate the green grass"]


def process_perplexity():
    """exp(entropy per token) of drawing a sentence uniformly and writing its words and <eos>:
    the only uncertain tokens are the first word of a sentence and, given it, the second."""
    firsts = [s.split()[0] for s in SENTENCES]
    entropy = 0.0
    for first in set(firsts):
        p_first = firsts.count(first) / len(SENTENCES)
        entropy -= p_first * math.log(p_first)
        seconds = [s.split()[1] for s in SENTENCES if s.split()[0] == first]
        for second in set(seconds):
            p = seconds.count(second) / len(seconds)
            entropy -= p_first * p * math.log(p)
    tokens = sum(len(s.split()) + 1 for s in SENTENCES) / len(SENTENCES)
    return math.exp(entropy / tokens)


def test_the_model_learns_the_sentences(tmp_path):
    rng = random.Random(3)
    (tmp_path / "corpus.txt").write_text("".join(rng.choice(SENTENCES) + "\n" for _ in range(1200)))
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD_DIR, "python"))
    done = subprocess.run([sys.executable, EXAMPLE, "--data", str(tmp_path / "corpus.txt"), "--epochs", "6"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    perplexities = [float(v) for v in re.findall(r"validation perplexity ([0-9.]+)", done.stdout)]
    assert len(perplexities) == 6, done.stdout
    best = process_perplexity()  # 1.26 for these sentences
    assert perplexities[0] > perplexities[-1]
    assert 0.95 * best < perplexities[-1] < 1.2 * best, (perplexities, best)
