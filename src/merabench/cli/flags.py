"""Every option of `run`, declared once and grouped as RunConfig groups them (the endpoint, the
generation, the data, the cache, the budget, serving, the Batch API, the judge, the run's
control): `run` names each parameter's type from here, and `score` takes the options it shares
(the split, the cache, the judge, --strip-think) from here too, so a help text or a bound is
written in one place. `export-requests` and `import-responses` are `run` itself (cli/main.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from merabench.cli.help import BATCH, CONTROL, COST, DATA, GENERATION, JUDGE, MODEL, OUTPUT, SERVING
from merabench.cli.options import MAX_TOKENS, seed_option
from merabench.models.presets import PRESETS
from merabench.models.shaping import ApiProfile
from merabench.models.sources import model_help
from merabench.records import CacheScope, ToolMode
from merabench.runner.work import MAX_REPEATS


class Endpoint:
    Model = Annotated[str, typer.Option(help=model_help(), rich_help_panel=MODEL)]
    BaseUrl = Annotated[list[str], typer.Option(help="endpoint base URL, repeat for replicas", rich_help_panel=MODEL)]
    ApiKey = Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY)", rich_help_panel=MODEL)]
    Concurrency = Annotated[str, typer.Option(help="requests in flight per endpoint: auto (grown while the server's "
                                                  "throughput grows, cut when only its latency does) or a number",
                                             rich_help_panel=CONTROL)]
    MaxRetries = Annotated[int, typer.Option(min=0, help="retries of a failed request (timeouts, 429, 5xx)", rich_help_panel=CONTROL)]
    Timeout = Annotated[float, typer.Option(help="per-request timeout, seconds", rich_help_panel=CONTROL)]
    RetryDelay = Annotated[float, typer.Option(help="first retry back-off, seconds", rich_help_panel=CONTROL)]
    Profile = Annotated[str, typer.Option(help=f"request shape: {ApiProfile.CHAT} (max_tokens, temperature), "
                                                  f"{ApiProfile.REASONING} (max_completion_tokens, no temperature or "
                                                  f"stop unless set), {ApiProfile.AUTO} (chat, adapting to parameters "
                                                  "the server refuses)", rich_help_panel=MODEL)]
    DropParam = Annotated[list[str] | None, typer.Option(help="leave this field out of every request, repeatable", rich_help_panel=MODEL)]
    ImportResponses = Annotated[Path | None, typer.Option(
        help="answer from a batch output (OpenAI Batch output, or {custom_id, text} lines) instead of an endpoint", rich_help_panel=MODEL)]


class Generation:
    Preset = Annotated[str | None, typer.Option(help=f"request parameters of a protocol: {', '.join(PRESETS)} "
                                                    "(mera: the leaderboard's); flags below override it", rich_help_panel=GENERATION)]
    MaxTokens = Annotated[int | None, typer.Option(min=1, max=MAX_TOKENS, help="longest answer, in tokens [default: 4096, or the preset's]", rich_help_panel=GENERATION)]
    Temperature = Annotated[float | None, typer.Option(help="sampling temperature [default: 0: sent as 0 and so recorded in results.json; none is sent with --api-profile openai-reasoning]", rich_help_panel=GENERATION)]
    Seed = Annotated[int | None, seed_option("sampling seed (also seeds --model random) [default: none, or the preset's]", rich_help_panel=GENERATION)]
    Stop = Annotated[list[str] | None, typer.Option(help="stop sequence, repeatable [default: none, or the preset's]", rich_help_panel=GENERATION)]
    ExtraBody = Annotated[str | None, typer.Option(help="JSON merged into each request body", rich_help_panel=GENERATION)]
    ReasoningEffort = Annotated[str | None, typer.Option(help="reasoning_effort for reasoning models: none, minimal, low, medium, high", rich_help_panel=GENERATION)]
    SystemPrompt = Annotated[str | None, typer.Option(help="system message before every prompt", rich_help_panel=GENERATION)]
    ToolUse = Annotated[str, typer.Option(help=f"gorillahard: {ToolMode.TEXT} (the leaderboard's protocol: the catalog "
                                           f"in the prompt, one JSON envelope back) or {ToolMode.NATIVE} (the catalog as "
                                           "OpenAI tools, answered by tool calls; not leaderboard-comparable)",
                                           rich_help_panel=GENERATION)]
    Repeats = Annotated[int, typer.Option(min=1, max=MAX_REPEATS, help="ask each row K times (the k-th with seed + k): "
                                         "intervals over rows with all their repeats, flip_rate; more repeats into "
                                         "a folder ask only the new ones", rich_help_panel=GENERATION)]
    RepeatSeed = Annotated[str, typer.Option(help="offset: the k-th repeat sends seed + k (a seeded sampler draws "
                                             "afresh); same: the seed itself (what varies is the server)",
                                             rich_help_panel=GENERATION)]
    Wordings = Annotated[str, typer.Option(help="assigned: each row under the prompt wording MERA gave it (the "
                                          "leaderboard's protocol); all: under every wording its task has, "
                                          "with per-wording figures and wording_flip_rate",
                                          rich_help_panel=GENERATION)]
    StripThink = Annotated[bool, typer.Option(help="SAGE, RussianRegions: remove <think> blocks before scoring (an extra; "
                                                   "the leaderboard scores them as text; GorillaHard always removes them)",
                                              rich_help_panel=GENERATION)]


class Data:
    Tasks = Annotated[str, typer.Option(help="comma-separated tasks", rich_help_panel=DATA)]
    Specs = Annotated[list[str], typer.Option(help="bundled | hub | generated[:SEED] | PATH, or TASK=SPEC", rich_help_panel=DATA)]
    Split = Annotated[str, typer.Option(help="split to evaluate", rich_help_panel=DATA)]
    Limit = Annotated[int | None, typer.Option(min=1, help="only the first N rows of each task", rich_help_panel=DATA)]


class Cache:
    Use = Annotated[bool, typer.Option(help="use the response cache", rich_help_panel=CONTROL)]
    File = Annotated[Path | None, typer.Option(help="sqlite response cache [default: $MERABENCH_CACHE or ~/.cache/merabench]", rich_help_panel=CONTROL)]
    Scope = Annotated[str, typer.Option(help=f"{CacheScope.ENDPOINT}: answers are reused only from the same "
                                                  f"endpoints; {CacheScope.MODEL}: from any endpoint serving the same "
                                                  "model name (judge replies likewise)",
                                                  rich_help_panel=CONTROL)]


class Budget:
    PriceIn = Annotated[float | None, typer.Option(help="price per million prompt tokens: cost in results and report", rich_help_panel=COST)]
    PriceOut = Annotated[float | None, typer.Option(help="price per million completion tokens (reasoning included)", rich_help_panel=COST)]
    PriceFile = Annotated[Path | None, typer.Option(help='TOML prices by model: ["gpt-4o-mini"] input = 0.15, output = 0.6', rich_help_panel=COST)]
    MaxCost = Annotated[float | None, typer.Option(help="stop sending once fresh answers cost this much (needs prices); "
                                                        "rerun to continue", rich_help_panel=COST)]
    Deadline = Annotated[str | None, typer.Option(help="stop sending after this wall time (3600, 90m, 2h); rerun to continue", rich_help_panel=COST)]


class Serving:
    Engine = Annotated[str | None, typer.Option(help="start the model's server for the run: vllm or sglang "
                                                   "(--model is then the checkpoint path or hub id)", rich_help_panel=SERVING)]
    Cmd = Annotated[str | None, typer.Option(help="the server command instead of --serve, with {port} "
                                                       "(and {model}) filled in", rich_help_panel=SERVING)]
    Args = Annotated[str | None, typer.Option(help="arguments passed to the server, e.g. "
                                                        "'--tensor-parallel-size 2 --max-model-len 32768'", rich_help_panel=SERVING)]
    Replicas = Annotated[int, typer.Option(min=1, help="servers to start, one GPU set each (at most 64, and "
                                                            "one per GPU present)", rich_help_panel=SERVING)]
    Gpus = Annotated[str | None, typer.Option(help="each replica's CUDA_VISIBLE_DEVICES, ';' between replicas: "
                                                        "'0,1;2,3' [default: replica n gets GPU n]", rich_help_panel=SERVING)]
    Timeout = Annotated[float, typer.Option(help="seconds to wait for the server to answer /v1/models", rich_help_panel=SERVING)]
    Env = Annotated[list[str] | None, typer.Option(
        help="pass this environment variable to the server although it looks like a credential (HF_TOKEN), "
             "repeatable", rich_help_panel=SERVING)]


class Batch:
    Use = Annotated[bool, typer.Option(
        help="send the requests through the endpoint's Batch API (about half the price; answered within 24 h): "
             "submitted, followed, imported and scored by this command; killed or detached, the same command "
             "continues", rich_help_panel=BATCH)]
    Poll = Annotated[float, typer.Option(help="seconds between two looks at the running batches (the "
                                                   "server's Retry-After respected)", rich_help_panel=BATCH)]
    Detach = Annotated[bool, typer.Option(help="with --batch: submit, then exit (code 3) with the command that "
                                              "waits, imports and scores", rich_help_panel=BATCH)]
    Fallback = Annotated[str, typer.Option(help="a row its batch failed or let expire: batch (asked again in a "
                                                     "new batch by the next run) or direct (asked through the "
                                                     "endpoint at once)", rich_help_panel=BATCH)]
    Discount = Annotated[float, typer.Option(help="the batch price as a share of the prices given (the cost "
                                                       "and --max-cost)", rich_help_panel=BATCH)]
    MaxRequests = Annotated[int, typer.Option(min=1, help="requests in one batch (the API's limit)",
                                                    rich_help_panel=BATCH)]
    MaxMb = Annotated[float, typer.Option(help="megabytes in one batch's input file (the API's limit)",
                                                rich_help_panel=BATCH)]


class Control:
    OutDir = Annotated[Path | None, typer.Option("--out", help="run folder (rerun to resume)", rich_help_panel=CONTROL)]
    LogPrompts = Annotated[bool, typer.Option(help="keep each request's messages in its samples record", rich_help_panel=OUTPUT)]
    FailOnError = Annotated[float | None, typer.Option(
        help="exit 1 if a task's error rate exceeds this [default: exit 1 only if every row of a task failed]", rich_help_panel=CONTROL)]
    Progress = Annotated[bool, typer.Option(help="live progress bars", rich_help_panel=CONTROL)]
    ExportRequests = Annotated[Path | None, typer.Option(
        help="write the requests still to send as OpenAI Batch input lines to this file, and stop", rich_help_panel=OUTPUT)]
    Config = Annotated[Path | None, typer.Option(help="a TOML file of these options (the flags' names as keys); "
                                                     "flags given here override it", rich_help_panel=CONTROL)]
    DumpConfig = Annotated[bool, typer.Option(help="print the effective options as a config file and stop", rich_help_panel=CONTROL)]


class Judge:
    Model = Annotated[str | None, typer.Option(help="LLM judge, openai:<model> (default: $LM_EVAL_JUDGE_MODEL)",
                                                    rich_help_panel=JUDGE)]
    BaseUrl = Annotated[list[str], typer.Option(help="judge base URL, as --base-url (ending in /v1); default: "
                                                  "$LM_EVAL_JUDGE_API_BASE, the server root as the harness takes it",
                                                  rich_help_panel=JUDGE)]
    ApiKey = Annotated[str | None, typer.Option(help="judge API key (default: $LM_EVAL_JUDGE_API_KEY)",
                                                  rich_help_panel=JUDGE)]
    Concurrency = Annotated[int, typer.Option(min=1, help="judge requests in flight", rich_help_panel=JUDGE)]
    Prompt = Annotated[Path | None, typer.Option(
        help="file of a judge template in the public harness's protocol (default: the template text in "
             "$LM_EVAL_JUDGE_PROMPT, else merabench's own prompt)",
        rich_help_panel=JUDGE)]
