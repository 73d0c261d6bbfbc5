"""The shared driver of the reference scripts: reads the cases, runs each for its steps and
writes the parameters after every step, keyed by case name.

usage (through a script): <script>.py cases.json results.json
"""
import json
import sys


def trajectory(case, step):
    """step(params) applies one update to the list of parameters, given case["grads"][s]."""
    out = []
    for step_grads in case["grads"]:
        out.append(step(step_grads))
    return out


def main(run):
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump({c["name"]: run(c) for c in cases}, f)
