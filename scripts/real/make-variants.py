#!/usr/bin/env python3
"""Writes the identity calibration's models next to the suite's two tiny ones (issue 34).

The suite's tiny-stops.gguf is already F16 (make-model.py stores every matrix as float16 and names the file
MOSTLY_F16; only the norm vectors are F32, as in any F16 GGUF): it is the reference. From it:
- tiny-stops-q8_0.gguf, tiny-stops-q4_0.gguf: llama-quantize of the reference (the same weights, rounded);
- tiny-other.gguf: make-model.py's tiny-stops with another seed: the same shape, tokenizer, template and
  end-of-turn bias, other random weights.

make-model.py is run as it is (its bytes are what the real suite's truth rests on): only numpy's seeded
generator is given another seed while it runs, into a temporary folder, and its tiny-stops kept.

usage: make-variants.py LLAMA_CPP_DIR MODELS_DIR LLAMA_QUANTIZE
"""
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

LLAMA, MODELS, QUANTIZE = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
HERE = Path(__file__).resolve().parent
OTHER_SEED = 20261124  # make-model.py's seed + 1
REFERENCE = MODELS / 'tiny-stops.gguf'

for kind in ('Q8_0', 'Q4_0'):
    out = MODELS / f'tiny-stops-{kind.lower()}.gguf'
    subprocess.run([QUANTIZE, str(REFERENCE), str(out), kind, '1'], check=True)
    print(out)

seeded = np.random.default_rng
seeds = []


def other_rng(seed=None):
    seeds.append(seed)
    return seeded(OTHER_SEED)


with tempfile.TemporaryDirectory() as tmp:
    np.random.default_rng = other_rng
    argv = sys.argv
    try:
        sys.argv = [str(HERE / 'make-model.py'), str(LLAMA), tmp]
        runpy.run_path(str(HERE / 'make-model.py'), run_name='__main__')
    finally:
        np.random.default_rng = seeded
        sys.argv = argv
    # make-model.py seeds one generator a model, from its own SEED: each of them got OTHER_SEED instead.
    if not seeds or any(s == OTHER_SEED for s in seeds):
        sys.exit(f'make-model.py did not seed as expected: {seeds}')
    shutil.move(str(Path(tmp) / 'tiny-stops.gguf'), str(MODELS / 'tiny-other.gguf'))
print(MODELS / 'tiny-other.gguf')
