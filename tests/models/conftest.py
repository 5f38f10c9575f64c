"""The real small model as a transformers folder, made once per test session.

Reading SmolLM2's GGUF costs some 19 CPU seconds a process (transformers dequantises every
tensor in Python); its weights saved as a model folder load in a few. The runs whose point is
the GGUF itself (test_real_model's first run end to end, Ctrl-C while it loads) still read the
GGUF; the rerun and the Ctrl-C tests of a row generating run the folder, which holds the same
float32 weights (test_real_model's rerun gives the GGUF run's bytes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ONE_THREAD, made_once, smollm2_gguf

#: run in a process of its own (torch stays out of the test worker): load the GGUF with
#: transformers' own reads (merabench reads it once: models/gguf_once.py; the rerun of
#: test_real_model then compares the two ways), and save what was loaded (the loaded model is marked GGUF-quantised, which transformers
#: refuses to save; its tensors are plain float32 by then)
_CONVERT = """
import sys
from transformers import AutoModelForCausalLM, AutoTokenizer
gguf, target = sys.argv[1], sys.argv[2]
folder, name = gguf.rsplit("/", 1)
tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
model.hf_quantizer = None
if hasattr(model.config, "quantization_config"):
    del model.config.quantization_config
model.save_pretrained(target)
tokenizer.save_pretrained(target)
"""


@pytest.fixture(scope="session")
def smollm2_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct as a model folder, converted from the GGUF once a session."""
    gguf = smollm2_gguf()

    def convert(target: Path) -> None:
        done = subprocess.run([sys.executable, "-c", _CONVERT, str(gguf), str(target)], capture_output=True,
                              text=True, timeout=600, env=dict(os.environ, **ONE_THREAD))
        assert done.returncode == 0, done.stderr[-3000:]

    return made_once(tmp_path_factory, "smollm2-135m-instruct", convert)
