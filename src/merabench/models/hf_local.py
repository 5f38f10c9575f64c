"""Local transformers models: `hf:<path or hub id>`.

Greedy decoding at temperature 0 (sampling with the seed otherwise), the tokenizer's chat
template when it has one, stop sequences cut from the text. Generation runs in a worker thread,
one request at a time (a local model is compute-bound: parallel requests would only contend), on
the GPU when there is one. torch and transformers are imported only when such a model is asked
for: `pip install 'merabench[hf]'`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from merabench.errors import BackendError, ConfigError
from merabench.models.base import Backend, Completion, GenerationOptions, Request


class HFLocalBackend(Backend):
    def __init__(self, path: str, options: GenerationOptions | None = None) -> None:
        self.path = path
        self.name = f"hf:{path}"
        self.options = options or GenerationOptions()
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    async def preflight(self) -> list[str]:
        """Load the model before any file of the run is made: a missing torch or a model that
        cannot be loaded is one line, not a run folder with nothing in it."""
        def load() -> None:
            with self._lock:
                if self._model is None:
                    self._load()

        await asyncio.to_thread(load)
        return []

    def _load(self) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise ConfigError("hf: models need torch and transformers: pip install 'merabench[hf]'") from None
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(self.path)
            model = AutoModelForCausalLM.from_pretrained(self.path)
        except OSError as exc:
            raise ConfigError(f"could not load the model {self.path!r}: {' '.join(str(exc).split())}") from None
        self._device = "cuda" if torch.cuda.is_available() else "cpu"
        self._model = model.to(self._device).eval()
        self._torch = torch

    def _prompt_ids(self, messages: list[dict[str, str]]) -> Any:
        tokenizer = self._tokenizer
        if getattr(tokenizer, "chat_template", None):
            ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
            if not hasattr(ids, "shape"):  # newer transformers return a BatchEncoding
                ids = ids["input_ids"]
            return ids
        text = "\n\n".join(m["content"] for m in messages)
        return tokenizer(text, return_tensors="pt").input_ids

    def _generate(self, messages: list[dict[str, str]]) -> Completion:
        started = time.monotonic()
        with self._lock:
            if self._model is None:
                self._load()
            torch = self._torch
            options = self.options
            ids = self._prompt_ids(messages).to(self._device)
            sampling = (options.temperature or 0.0) > 0
            if sampling and options.seed is not None:
                torch.manual_seed(options.seed)
            kwargs: dict[str, Any] = {"max_new_tokens": options.max_tokens, "do_sample": sampling}
            if sampling:
                kwargs["temperature"] = options.temperature
            pad = self._tokenizer.pad_token_id if self._tokenizer.pad_token_id is not None else self._tokenizer.eos_token_id
            with torch.no_grad():
                output = self._model.generate(ids, attention_mask=torch.ones_like(ids), pad_token_id=pad, **kwargs)
            new = output[0][ids.shape[1]:]
            text = self._tokenizer.decode(new, skip_special_tokens=True)
        finish = "length" if len(new) >= options.max_tokens else "stop"
        for stop in options.stop:
            if stop in text:
                text, finish = text[:text.index(stop)], "stop"
        return Completion(text=text, prompt_tokens=int(ids.shape[1]), completion_tokens=int(len(new)),
                          finish_reason=finish, latency_s=time.monotonic() - started, endpoint=self.name)

    async def generate(self, request: Request) -> Completion:
        try:
            return await asyncio.to_thread(self._generate, list(request.messages))
        except (ConfigError, BackendError):
            raise
        except RuntimeError as exc:  # e.g. out of memory, a prompt longer than the model's context
            raise BackendError(f"{self.name}: {exc}", retryable=False) from None
