"""How many requests to keep in flight at one endpoint (`--concurrency auto`), learnt from it.

Grow while throughput grows, back off when latency grows without it. The limit starts at
AUTO_START and doubles while each doubling pays (a window's throughput grows by at least half of
what the step promised); a step that does not pay is taken back, and from then on the limit
holds, probing every PROBE_EVERY windows, alternately one step up (an eighth: kept if it pays)
and one down (a quarter: kept when throughput holds within 5 % and latency falls by at least
half the step, so a limit past what the server serves comes down to it). Holding, a window with clearly fewer answers each slower (the server's
capacity fell) cuts the limit in proportion. Answers to
requests sent before a change are not counted for it (they say nothing about the new limit).

The first burst is judged at once (after BURST_WINDOW answers, Vegas-style): when its latencies
spread far beyond its fastest answer, the requests are queued in the server, and the limit drops
to what the server works on (throughput x the fastest latency, by Little's law) plus headroom.
A server that says how many it serves (llama.cpp's `/props` total_slots) is sent that many plus
headroom from the start; one whose /metrics show requests waiting in its queue (vLLM, SGLang) is
cut to what it serves of ours. 429/503 halving (models/endpoints.py) composes with all this.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

AUTO_START = 32      # today's fixed default: a wide server is served at once, a narrow one is learnt
AUTO_MAX = 256       # per endpoint
BURST_WINDOW = 8     # answers that judge the first burst
MIN_WINDOW = 16      # answers in a window, at least
WINDOW_LATENCIES = 3  # a window lasts at least this many mean latencies
PROBE_EVERY = 8      # windows held before one step up
TRACE_MAX = 400
WORD_BELIED = 8      # a server serving an eighth of the slots it claims is not believed


@dataclass(frozen=True)
class Window:
    limit: int
    rate: float      # answers per second
    mean: float      # mean latency, seconds


def headroom(capacity: float) -> int:
    """Requests kept beyond what the server works on, so a slot never idles between answers."""
    return max(1, math.ceil(capacity / 8))


def sent_for_slots(slots: int, ceiling: int = AUTO_MAX) -> int:
    """What is sent at once to a server that says it serves `slots`: those, plus headroom, up to
    the ceiling."""
    return max(1, min(ceiling, slots + headroom(min(slots, ceiling))))


@dataclass
class AdaptiveLimit:
    limit: int = AUTO_START
    ceiling: int = AUTO_MAX
    slots: int | None = None                  # what the server said it serves at once (None: not said, or belied)
    said_slots: int | None = None             # what it said when its answers showed far fewer
    server_running: float | None = None       # its last word on how many it runs (vLLM, SGLang /metrics)
    trace: list[tuple[float, int]] = field(default_factory=list)  # (seconds since start, limit)
    _growing: bool = True                     # doubling, until a step does not pay
    _ref: Window | None = None                # the last window before the step being judged
    _hold: int = PROBE_EVERY
    _probe_up: bool = False
    _probing_down: bool = False
    _started: float | None = None
    _changed_at: float = float("-inf")
    _window_start: float | None = None
    _count: int = 0
    _latency_sum: float = 0.0
    _fastest: float = float("inf")

    def start(self, now: float) -> None:
        if self._started is None:
            self._started = now
            self._record(now)

    def told_slots(self, slots: int, now: float) -> None:
        """The server said how many requests it serves at once: send that many, plus headroom."""
        self.slots = slots
        self._set(sent_for_slots(slots, self.ceiling), now)
        self._growing = False

    def observe(self, latency: float, now: float) -> None:
        """One answer, `latency` seconds after it was sent."""
        if self.slots is not None:
            self._weigh_word(latency, now)  # the server's word holds, unless its answers belie it
            return
        if self._window_start is None:
            if now - latency < self._changed_at:
                return  # sent under the previous limit: says nothing about this one
            if self._changed_at != float("-inf"):
                # the first answer to a request sent after the change: under FIFO the older ones
                # are out of the way now, so the window opens here and counts every answer after
                self._window_start = now
                return
            self._window_start = now - latency  # the run's first window opens at the first send
        self._count += 1
        self._latency_sum += latency
        if latency < self._fastest:
            self._fastest = latency
        if self._count < max(MIN_WINDOW, self.limit // 2):
            if self._ref is None and self._count == BURST_WINDOW and self._changed_at == float("-inf"):
                self._first_burst(now)
            return
        mean = self._latency_sum / self._count
        if now - self._window_start >= WINDOW_LATENCIES * mean:  # long enough to even out cohorts sent together
            self._judge(Window(self.limit, self._count / (now - self._window_start), mean), now)

    def _weigh_word(self, latency: float, now: float) -> None:
        """The first BURST_WINDOW answers to a server that said how many it serves: when they show
        far fewer served at once (throughput x the fastest latency, Little's law) than it said,
        its word is dropped and the limit is learnt from its answers (a `/props` claiming 64
        slots on a 2-slot server would otherwise start 64 time-out clocks at once)."""
        if self._window_start is None:
            self._window_start = now - latency
        self._count += 1
        self._fastest = min(self._fastest, latency)
        if self._count != BURST_WINDOW or self.slots is None:
            return
        serving = self._count / max(1e-9, now - self._window_start) * self._fastest
        if serving * WORD_BELIED < self.slots:
            self.said_slots, self.slots, self._growing = self.slots, None, True
            self._set(max(1, min(self.ceiling, math.ceil(serving) + headroom(serving))), now)

    def _first_burst(self, now: float) -> None:
        rate = self._count / max(1e-9, now - (now if self._window_start is None else self._window_start))
        mean = self._latency_sum / self._count
        serving = rate * self._fastest
        if rate * (mean - self._fastest) > max(2.0, serving / 2):  # most of the burst waited in a queue
            # the fastest answer underestimates what the server serves when answers differ in
            # length: from here the limit doubles again while that pays
            self._set(max(1, min(self.limit, math.ceil(serving) + headroom(serving))), now)

    def _judge(self, window: Window, now: float) -> None:
        ref, self._ref = self._ref, window
        if ref is not None and window.limit > ref.limit:  # a step up: did it pay?
            promised = window.limit / ref.limit - 1
            if window.rate < ref.rate * (1 + promised / 2):
                self._growing, self._hold, self._ref = False, PROBE_EVERY, ref
                self._set(ref.limit, now)
                return
        elif ref is not None and window.limit < ref.limit and self._probing_down:
            self._probing_down = False
            step = 1 - window.limit / ref.limit
            # requests that only queued: as many answers, each sooner by about their share
            if window.rate < 0.95 * ref.rate or window.mean > ref.mean * (1 - step / 2):
                self._ref = ref
                self._set(ref.limit, now)
                return
            self._hold, self._probe_up = 1, True  # as many answers with fewer: try fewer again next
        elif ref is not None and window.limit == ref.limit and window.rate < 0.75 * ref.rate \
                and window.mean > 1.25 * ref.mean:  # fewer answers, each slower: the server serves fewer
            self._set(max(1, math.ceil(window.limit * window.rate / ref.rate)), now)
            return
        if self._growing:
            self._set(min(self.ceiling, self.limit * 2), now)
            return
        self._hold -= 1
        if self._hold > 0:
            self._next_window(now)
            return
        # held long enough: probe, alternately up (more answers?) and down (as many with fewer?)
        self._hold = PROBE_EVERY
        self._probe_up = not self._probe_up
        if self._probe_up and self.limit < self.ceiling:
            self._set(min(self.ceiling, self.limit + max(1, self.limit // 8)), now)
        elif not self._probe_up and self.limit > 1:
            self._probing_down = True
            self._set(self.limit - max(1, self.limit // 4), now)
        else:
            self._next_window(now)

    def _set(self, limit: int, now: float) -> None:
        self.limit = limit
        self._changed_at = now
        self._window_start = None
        self._next_window(now)
        self._record(now)

    def _next_window(self, now: float) -> None:
        if self._window_start is not None:
            self._window_start = now
        self._count, self._latency_sum, self._fastest = 0, 0.0, float("inf")

    def told_queue(self, running: float, waiting: float, in_flight: int, now: float) -> None:
        """The server's gauges (vLLM, SGLang): requests waiting in its queue are requests it
        cannot serve yet; past the headroom, the limit drops to what it serves of ours."""
        if not (math.isfinite(running) and math.isfinite(waiting)):
            return  # a broken gauge (NaN, Inf) says nothing
        self.server_running = running
        if self.slots is not None or waiting <= headroom(max(1.0, running)):
            return
        served = max(1, in_flight - math.ceil(waiting))
        target = max(1, min(self.ceiling, served + headroom(served)))
        if target < self.limit:
            self._growing, self._ref = False, None
            self._set(target, now)

    def halve(self, now: float) -> None:
        """The server refused for load (429/503): half as many from now on."""
        self._growing, self._ref = False, None
        self._set(max(1, self.limit // 2), now)

    def _record(self, now: float) -> None:
        if self.trace and self.trace[-1][1] == self.limit:
            return
        self.trace.append((round(now - (now if self._started is None else self._started), 2), self.limit))
        if len(self.trace) > TRACE_MAX:  # a long run: keep every other change
            self.trace[1:-1] = self.trace[1:-1:2]

    def describe(self) -> dict[str, object]:
        limits = [n for _, n in self.trace] or [self.limit]
        said = {"server_said_slots": self.said_slots} if self.said_slots is not None else {}
        return {"mode": "auto", "server_slots": self.slots, **said, "final": self.limit, "min": min(limits),
                "max": max(limits), "trace": [list(p) for p in self.trace]}
