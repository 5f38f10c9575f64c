"""The endpoint pool alone, in-process: least busy first, halving on throttling, regrowth, pauses."""

from __future__ import annotations

import asyncio
import time

from merabench.models.endpoints import EndpointPool


def run(coro):
    return asyncio.run(coro)


def test_least_busy_first_and_round_robin_among_equals() -> None:
    async def go():
        pool = EndpointPool(["a", "b", "c"], max_in_flight=4)
        first = [await pool.acquire() for _ in range(3)]
        assert sorted(e.url for e in first) == ["a", "b", "c"]  # one each before any doubles up
        pool.release(first[0], ok=True)
        return (await pool.acquire()).url, first[0].url

    again, freed = run(go())
    assert again == freed  # the one with room is the least busy


def test_a_throttled_endpoint_halves_its_limit_and_pauses() -> None:
    async def go():
        pool = EndpointPool(["a", "b"], max_in_flight=8)
        a = next(e for e in pool.endpoints if e.url == "a")
        a.in_flight += 1
        pool.release(a, ok=False)
        pool.throttled(a, 429, 0.3, a.pause_epoch)
        assert a.limit == 4.0 and a.paused_until > time.monotonic()
        picks = {(await pool.acquire()).url for _ in range(5)}
        return picks

    assert run(go()) == {"b"}  # a is paused


def test_the_limit_grows_back_one_per_limit_successes() -> None:
    pool = EndpointPool(["a"], max_in_flight=8)
    a = pool.endpoints[0]
    for _ in range(3):  # 8 -> 4 -> 2 -> 1: each refusal sent after the last pause began
        a.in_flight += 1
        pool.release(a, ok=False)
        pool.throttled(a, 503, 0.0, a.pause_epoch)
    assert a.limit == 1.0
    for _ in range(10):
        a.in_flight += 1
        pool.release(a, ok=True)
    assert 4.0 < a.limit < 5.0  # additive increase: about one per `limit` successes
    for _ in range(200):
        a.in_flight += 1
        pool.release(a, ok=True)
    assert a.limit == 8.0  # never past the maximum


def test_waiters_wake_when_every_endpoint_is_paused_and_the_pause_ends() -> None:
    async def go():
        pool = EndpointPool(["a"], max_in_flight=1)
        a = await pool.acquire()
        pool.release(a, ok=False)
        pool.throttled(a, 429, 0.2, a.pause_epoch)
        started = time.monotonic()
        await pool.acquire()
        return time.monotonic() - started

    waited = run(go())
    assert 0.15 < waited < 2.0


def test_a_full_endpoint_makes_the_next_acquire_wait_for_a_release() -> None:
    async def go():
        pool = EndpointPool(["a"], max_in_flight=1)
        held = await pool.acquire()
        waiter = asyncio.create_task(pool.acquire())
        await asyncio.sleep(0.05)
        assert not waiter.done()
        pool.release(held, ok=True)
        return await asyncio.wait_for(waiter, 1.0)

    assert run(go()).url == "a"


def test_refusals_of_requests_sent_before_a_pause_add_nothing() -> None:
    """Back-pressure is the endpoint's: eight requests refused at once pause it once, halve it once."""
    pool = EndpointPool(["a"], max_in_flight=8)
    a = pool.endpoints[0]
    epoch = a.pause_epoch  # all eight were sent in this epoch
    for _ in range(8):
        a.in_flight += 1
        pool.release(a, ok=False)
        pool.throttled(a, 429, 0.5, epoch)
    assert a.limit == 4.0 and a.pause_epoch == epoch + 1 and a.refusals == 1


def test_a_worker_waiting_for_a_refused_slot_waits_out_the_pause() -> None:
    """The backend pauses the endpoint before it frees the refused request's place: the waiter
    must not be sent into the pause (it was, when the place was freed first)."""
    async def go():
        pool = EndpointPool(["a"], max_in_flight=2)
        first, second = await pool.acquire(), await pool.acquire()
        waiter = asyncio.create_task(pool.acquire())
        await asyncio.sleep(0)
        started = time.monotonic()
        pool.throttled(first, 429, 0.3, first.pause_epoch)
        pool.release(first, ok=False)
        pool.release(second, ok=False)  # room under the halved limit, but the endpoint is paused
        await asyncio.sleep(0.05)
        assert not waiter.done()
        await asyncio.wait_for(waiter, 2.0)
        return time.monotonic() - started

    assert run(go()) >= 0.25
