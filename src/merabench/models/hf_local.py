"""Local transformers models: `hf:<folder, hub id or .gguf file>`.

Greedy decoding at temperature 0 (sampling with the seed otherwise), the tokenizer's chat
template when it has one. Generation ends at EOS, at a stop string (checked at every step, so a
row never runs on to the token limit past its stop) or at the limit, and
`finish_reason` says which. Generation runs in a worker thread, one request at a time (a local
model is compute-bound: parallel requests would only contend), on the GPU when there is one. A
row's latency is its own generation. Ctrl-C (the request cancelled) stops the generation at the
next token, and the tokens made so far feed the live line (`generating`).
The thread is a daemon: a load, which cannot be stopped half-way, never keeps the process from
exiting (`busy` tells the CLI to leave without waiting for it). The model is loaded at the first request that needs it, with
a line while it loads (a run whose every answer is cached or kept never loads it), timed once and
reported in the notes.
torch and transformers are imported only when such a model is asked for:
`pip install 'merabench[hf]'` (with gguf and accelerate, for GGUF files).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from merabench.errors import BackendError, ConfigError, NotSent
from merabench.models.base import Backend, Completion, Generating, GenerationOptions, Request
from merabench.models.gguf_layout import GGUFLayoutError, check_gguf_layout
from merabench.models.gguf_once import gguf_read_once
from merabench.models.hf_source import describe_load_failure, resolve_source


class HFLocalBackend(Backend):
    def __init__(self, path: str, options: GenerationOptions | None = None) -> None:
        self.path = path
        self.name = f"hf:{path}"
        self.options = options or GenerationOptions()
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self._turn: asyncio.Lock | None = None
        self._load_s: float | None = None
        self._say: Callable[[str], None] = lambda message: None
        self._current: _Generation | None = None

    def speak_through(self, say: Callable[[str], None]) -> None:
        self._say = say

    def _load(self) -> None:
        started = time.monotonic()
        try:
            import torch
            import transformers
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise ConfigError("hf: models need torch and transformers: pip install 'merabench[hf]'") from None
        source = resolve_source(self.path)
        quiet_loading(transformers)
        kwargs = {"gguf_file": source.gguf_file} if source.gguf_file else {}
        try:
            with gguf_read_once() if source.gguf_file else contextlib.nullcontext():
                self._tokenizer = AutoTokenizer.from_pretrained(source.location, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(source.location, **kwargs)
        except Exception as exc:  # transformers raises OSError, ValueError, ImportError, KeyError... by cause
            raise ConfigError(describe_load_failure(self.path, source, exc)) from None
        self._device = "cuda" if torch.cuda.is_available() else "cpu"
        # Any: transformers wraps `to` with functools.wraps(torch.nn.Module.to), which mypy reads as unbound
        self._model = cast(Any, model).to(self._device).eval()
        self._torch = torch
        self._transformers = transformers
        eos = model.generation_config.eos_token_id
        self._eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        self._context = getattr(model.config, "max_position_embeddings", None)
        self._load_s = time.monotonic() - started

    def _prompt_ids(self, messages: list[dict[str, str]]) -> Any:
        tokenizer = self._tokenizer
        if getattr(tokenizer, "chat_template", None):
            ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
            if not hasattr(ids, "shape"):  # newer transformers return a BatchEncoding
                ids = ids["input_ids"]
            return ids
        text = "\n\n".join(m["content"] for m in messages)
        return tokenizer(text, return_tensors="pt").input_ids

    def _generate(self, messages: list[dict[str, str]], options: GenerationOptions,
                  halt: threading.Event) -> Completion:
        with self._lock:
            if self._model is None:
                self._say(f"loading {self.name} (the first request waits for it)")
                self._current = _Generation(time.monotonic(), 0, loading=True)
                try:
                    self._load()
                finally:
                    self._current = None
                self._say(f"{self.name} loaded in {self._load_s:.1f} s")
            started = time.monotonic()  # after the lock and the load: the row's own generation time
            torch = self._torch
            ids = self._prompt_ids(messages).to(self._device)
            n_prompt = int(ids.shape[1])
            limit = options.max_tokens
            if self._context:
                if n_prompt >= self._context:
                    raise BackendError(f"{self.name}: the prompt of {n_prompt} tokens does not fit the model's "
                                       f"context of {self._context}", retryable=False)
                limit = min(limit, self._context - n_prompt)  # as a server does: the context bounds the answer
            sampling = (options.temperature or 0.0) > 0
            if sampling and options.seed is not None:
                torch.manual_seed(options.seed)
            kwargs: dict[str, Any] = {"max_new_tokens": limit, "do_sample": sampling}
            if sampling:
                kwargs["temperature"] = options.temperature
            else:  # a GGUF's or hub model's generation config may carry sampling defaults that greedy ignores
                kwargs.update(temperature=None, top_p=None, top_k=None)
            self._current = current = _Generation(started, n_prompt)
            criteria: list[Any] = [WatchSteps(current, halt, torch)]
            if options.stop:
                criteria.append(StopAtStrings(self._tokenizer, options.stop, n_prompt, torch))
            kwargs["stopping_criteria"] = self._transformers.StoppingCriteriaList(criteria)
            pad = self._tokenizer.pad_token_id if self._tokenizer.pad_token_id is not None else self._tokenizer.eos_token_id
            try:
                with torch.no_grad():
                    output = self._model.generate(ids, attention_mask=torch.ones_like(ids), pad_token_id=pad, **kwargs)
            finally:
                self._current = None
            new = output[0][n_prompt:].tolist()
            text = self._tokenizer.decode(new, skip_special_tokens=True)
            latency = time.monotonic() - started
        text, finish = finish_of(text, new, self._eos_ids, options.stop, limit)
        return Completion(text=text, prompt_tokens=n_prompt, completion_tokens=len(new), finish_reason=finish,
                          latency_s=latency, endpoint=self.name)

    async def generate(self, request: Request) -> Completion:
        if self._turn is None:
            self._turn = asyncio.Lock()  # in the run's own loop
        async with self._turn:  # one generation at a time: the others wait here, not in a thread
            if not request.may_send():
                raise NotSent("the run stopped sending")
            halt = threading.Event()
            try:
                return await in_daemon_thread(self._generate, list(request.messages), request.options(self.options), halt)
            except asyncio.CancelledError:  # Ctrl-C, or the run stopping: the thread stops at its next token
                halt.set()
                raise
            except (ConfigError, BackendError):
                raise
            except Exception as exc:  # out of memory, a chat template that refuses the messages (jinja2), ...
                detail = " ".join(str(exc).split())[:300]
                raise BackendError(f"{self.name}: {type(exc).__name__}: {detail}", retryable=False) from None

    async def preflight(self) -> list[str]:
        """What can be checked without loading the model, before any file of the run is made: the
        libraries and the path (a file, a folder, a GGUF). Weights transformers cannot read fail at
        the first request, one line too; a run with every answer at hand never loads them."""
        missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
        if missing:
            raise ConfigError(f"hf: models need {' and '.join(missing)}: pip install 'merabench[hf]'")
        source = resolve_source(self.path)
        if source.gguf_file:
            missing = [name for name in ("gguf", "accelerate") if importlib.util.find_spec(name) is None]
            if missing:
                raise ConfigError(f"hf:{self.path} is a GGUF file; reading it needs {' and '.join(missing)}: "
                                  "pip install 'merabench[hf]'")
            await asyncio.to_thread(check_gguf, self.path, source)
        return []

    def generating(self) -> Generating | None:
        current = self._current
        if current is None:
            return None
        now = time.monotonic()
        rate = None
        if current.first_token_at is not None and current.tokens > 1 and now > current.first_token_at:
            rate = (current.tokens - 1) / (now - current.first_token_at)
        return Generating(current.tokens, now - current.started, loading=current.loading, tokens_per_s=rate)

    def notes(self) -> list[str]:
        if self._load_s is None:
            return []
        return [f"{self.name}: model loaded in {self._load_s:.1f} s (not part of any row's latency)"]


def check_gguf(spec: str, source: Any) -> None:
    """A GGUF file's layout walked (its records by their lengths, its tensor data against its size;
    no torch, no weights): a file that is not one is one line before the run's folder is made."""
    from pathlib import Path

    try:
        check_gguf_layout(Path(source.location) / source.gguf_file)
    except GGUFLayoutError as exc:  # the file itself, before transformers is asked anything
        raise ConfigError(f"could not load the model {spec!r}: could not read {source.gguf_file} as a GGUF "
                          f"file: {exc}") from None
    except Exception as exc:  # OSError, RecursionError (arrays nested past reason)
        raise ConfigError(describe_load_failure(spec, source, exc)) from None


_BUSY: set[threading.Thread] = set()  # the model's threads still loading or generating


def busy() -> bool:
    """A load or generation still runs in a thread: the process should exit without joining it."""
    return any(thread.is_alive() for thread in _BUSY)


async def in_daemon_thread(work: Callable[..., Completion], *args: Any) -> Completion:
    """`work(*args)` in a daemon thread of its own, awaited. Unlike asyncio.to_thread, the thread
    never holds up the end of the event loop or of the process (asyncio.run waits for its executor's
    threads; a load can take a minute)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Completion] = loop.create_future()

    def settle(outcome: Completion | BaseException) -> None:
        if done.cancelled():
            return
        if isinstance(outcome, BaseException):
            done.set_exception(outcome)
        else:
            done.set_result(outcome)

    def run() -> None:
        outcome: Completion | BaseException
        try:
            outcome = work(*args)
        except BaseException as exc:  # handed to the awaiting coroutine, which decides
            outcome = exc
        finally:
            _BUSY.discard(threading.current_thread())
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits for the answer
            loop.call_soon_threadsafe(settle, outcome)

    thread = threading.Thread(target=run, name="merabench-hf", daemon=True)
    _BUSY.add(thread)
    thread.start()
    return await done


@dataclass
class _Generation:
    """The row being generated: when it started, its prompt's length, tokens made so far."""

    started: float
    n_prompt: int
    tokens: int = 0
    loading: bool = False
    first_token_at: float | None = None  # the prompt is read by then: the rate counts from here


class WatchSteps:
    """A stopping criterion asked after every token: it counts the tokens for the live line and
    ends generation once `halt` is set (the awaiting request was cancelled: Ctrl-C, the run
    stopping), so nothing generates on after the run has gone."""

    def __init__(self, current: _Generation, halt: threading.Event, torch: Any) -> None:
        self.current, self.halt, self.torch = current, halt, torch

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        self.current.tokens = int(input_ids.shape[1]) - self.current.n_prompt
        if self.current.first_token_at is None:
            self.current.first_token_at = time.monotonic()
        return self.torch.full((input_ids.shape[0],), self.halt.is_set(), dtype=self.torch.bool,
                               device=input_ids.device)


class StopAtStrings:
    """Ends generation on the step whose token completes a stop string. transformers' own
    `stop_strings` needs a vocabulary it can map to text offline (it fails on word-level ones);
    decoding a window at the tail works with any tokenizer and costs one short decode a step."""

    def __init__(self, tokenizer: Any, stops: tuple[str, ...], n_prompt: int, torch: Any) -> None:
        self.tokenizer, self.stops, self.n_prompt, self.torch = tokenizer, [s for s in stops if s], n_prompt, torch
        # a stop string of k characters lies within its last k tokens (each yields at least one
        # character); the margin covers tokens that yield only part of a multi-byte character
        self.window = 4 * max((len(s) for s in self.stops), default=1) + 8

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        tail = input_ids[0, max(self.n_prompt, input_ids.shape[1] - self.window):]
        text = self.tokenizer.decode(tail, skip_special_tokens=True)
        done = any(stop in text for stop in self.stops)
        return self.torch.full((input_ids.shape[0],), done, dtype=self.torch.bool, device=input_ids.device)


def quiet_loading(transformers: Any) -> None:
    """No tqdm bars from the load: they would write over the run's own progress display. The GGUF
    reader calls tqdm directly (transformers' switch does not reach it), so it gets a silent one."""
    transformers.utils.logging.disable_progress_bar()
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:  # no gguf support in this transformers: nothing to silence
        return
    if hasattr(gguf_utils, "tqdm"):
        gguf_utils.tqdm = functools.partial(gguf_utils.tqdm, disable=True)


def finish_of(text: str, new_ids: list[int], eos_ids: set[int], stops: tuple[str, ...], limit: int) -> tuple[str, str]:
    """The answer cut at its first stop string, and why generation ended: `stop` at EOS or a stop
    string, `length` only when the token limit was reached without either."""
    cut = min((text.index(s) for s in stops if s and s in text), default=None)
    if cut is not None:
        return text[:cut], "stop"
    if new_ids and new_ids[-1] in eos_ids:
        return text, "stop"
    return text, "length" if len(new_ids) >= limit else "stop"
