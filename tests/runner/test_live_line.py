"""The line under the progress bars: what is under way right now, so a slow row is not taken
for a hang (an endpoint's requests in flight, a local model loading or generating)."""

from __future__ import annotations

import pytest

from merabench.cli.progress import live_line, seconds
from merabench.models.base import Generating
from merabench.runner.live import InFlight, LiveStatus, plan_line


@pytest.mark.parametrize(("status", "line"), [
    (LiveStatus(0, None), ""),
    (LiveStatus(32, 4.14), "in flight: 32 request(s), the oldest 4.1 s"),
    (LiveStatus(1, 3.0, Generating(0, 16.42, loading=True)), "loading the model: 16.4 s"),
    (LiveStatus(1, 15.2, Generating(185, 15.2, tokens_per_s=12.25)), "this row: 185 token(s), 12.2/s, 15.2 s"),
    (LiveStatus(5, 168.0, Generating(1, 8.0)), "this row: 1 token(s), 8.0 s; 4 row(s) waiting, the oldest 2 min 48 s"),
])
def test_the_live_line_says_what_is_under_way(status: LiveStatus, line: str) -> None:
    assert live_line(status) == line


def test_ages_read_as_a_person_reads_them() -> None:
    assert [seconds(s) for s in (0.04, 59.94, 65, 3725)] == ["0.0 s", "59.9 s", "1 min 05 s", "1 h 02 min"]


def test_in_flight_knows_its_oldest_request() -> None:
    flying = InFlight()
    first = flying.enter()
    second = flying.enter()
    assert flying.status().in_flight == 2
    flying.leave(first)
    flying.leave(first)  # twice: nothing more happens
    status = flying.status()
    assert status.in_flight == 1 and status.oldest_s is not None and status.generating is None
    flying.leave(second)
    assert flying.status() == LiveStatus(0, None)


def test_the_first_line_says_what_the_run_will_send() -> None:
    assert plan_line("openai:m", {"sage": 65, "gorillahard": 1169}, 12, 4741) == (
        "openai:m: 1,234 row(s) to ask (sage 65, gorillahard 1,169); 12 kept from this folder; at most 4,741 "
        "request(s) (tool-calling conversations: several a row), fewer where the response cache has the answer")
    assert plan_line("reference", {"sage": 3}, 0, None) == (
        "reference: 3 row(s) to answer (sage 3); a baseline sends no request")
