"""Frame times in headless Chromium with 200 messages in flight (issues 3 and 11).

Target (issue 11): the 95th-percentile frame time at most one 60 Hz frame (16.7 ms) as
the machine is, and at most two (33 ms) with the page's main thread slowed 4× (as a
phone is), judged on the median of the repeats with their spread printed.

Method: a daphne of our own on a free loopback port (temporary PLAYGROUND_VAR_DIR), the
quorum lab at 1280×900 and at 1920×1080 (a projector's, where the drawing is larger) in
headless Chromium, paused (a lab on the clock plays from the
start: Pause is pressed first), five copies. Fifty writes are submitted through the
page's own Write form while the clock stands still: each sends the write to the four
other copies, so 200 messages wait on the wire. Half a second later Play is pressed at
1/100× speed (latencies of 15–60 ms fly for 1.5–6 s) and a requestAnimationFrame probe,
injected with `page.evaluate` (nothing in the app's code), records every frame for two
seconds. How many messages were on the wire when Play was pressed is counted by the
simulator itself, replaying the same seed and actions in this process (same seed and
actions, same state: the page's room did exactly this). The CPU slow-down (Chrome
DevTools Protocol `Emulation.setCPUThrottlingRate`) is set after the writes, just
before Play; each repeat measures every slow-down on a fresh page, in turn. The
machine's load average is printed before and after.

Run alone: `python -m benchmarks.browser_network_fps [--repeat R] [--cpu-throttle N
[N ...]] [--url http://127.0.0.1:8000]`.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import FrameRun, FrameRuns, machine_load, render
from playground.liveserver import (
    CHROMIUM_ARGS,
    chromium_path,
    live_daphne,
    watch_errors,
)

VIEWPORT = {"width": 1280, "height": 900}
# a laptop's window and a projector's (issue 31: the drawing grows with the screen)
VIEWPORTS = (VIEWPORT, {"width": 1920, "height": 1080})
WRITES = 50
IN_FLIGHT = 200
WINDOW_MS = 2_000
# CPU slow-down -> the p95 target in 60 Hz frames: 16.7 ms as is, 33 ms slowed 4×.
THROTTLES = {1.0: 1, 4.0: 2}

# Press Play and record frames for `windowMs`; resolves with the frame timestamps.
PROBE_JS = """
async ({windowMs}) => {
  const frames = [];
  let running = true;
  const tick = (ts) => { frames.push(ts); if (running) requestAnimationFrame(tick); };
  await new Promise((resolve) => requestAnimationFrame(resolve));
  const play = document.querySelector(".timeline-play");
  requestAnimationFrame(tick);
  const start = performance.now();
  play.click();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  running = false;
  return {start, frames};
}
"""


def _submit(page, action: str, values: dict) -> None:
    """Fill and submit one action's form, then wait for the room to number it."""
    seq = int(page.get_attribute("#lab", "data-seq") or "0")
    for name, value in values.items():
        field = page.locator(f"#field-{action}-{name}")
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    page.locator(f'form[data-action="{action}"] button[type=submit]').click()
    page.wait_for_function(
        f"() => Number(document.getElementById('lab').dataset.seq) > {seq}"
    )


def _in_flight() -> int:
    """Messages on the wire after the page's actions, replayed in this process."""
    from simulators.labs.quorum import QuorumLab

    lab = QuorumLab(seed=0)
    lab.apply("pause", {})
    lab.apply("set_copies", {"copies": 5})
    lab.apply("set_speed", {"speed": 10})
    defaults = {p.name: p.default for p in lab.action_spec("write").params}
    for _ in range(WRITES):
        lab.apply("write", defaults)
    return len(lab.snapshot()["network"]["in_flight"])


def _pause(page) -> None:
    """Press Pause (a lab on the clock plays from the start) and wait for the room."""
    page.wait_for_selector(".timeline-play[data-playing=true]")
    page.locator(".timeline-play").click()
    page.wait_for_selector(".timeline-play[data-playing=false]")


def _set_speed(page, label: str) -> None:
    seq = int(page.get_attribute("#lab", "data-seq") or "0")
    page.select_option("#timeline-speed", label=label)
    page.wait_for_function(
        f"() => Number(document.getElementById('lab').dataset.seq) > {seq}"
    )


def measure(
    browser, base_url: str, throttle: float = 1.0, viewport: dict = VIEWPORT
) -> tuple[FrameRun, int]:
    """One run: frame intervals while 200 messages fly, and the count on the wire."""
    context = browser.new_context(viewport=viewport)
    page = watch_errors(context.new_page())
    try:
        page.goto(f"{base_url}/labs/quorum/?seed=0")
        page.wait_for_selector("#connection-status[data-state=open]")
        _pause(page)
        first = int(page.get_attribute("#lab", "data-seq") or "0")
        _submit(page, "set_copies", {"copies": 5})
        _set_speed(page, "1/100×")
        for _ in range(WRITES):
            _submit(page, "write", {})
        if page.get_attribute("#lab", "data-seq") != str(first + 2 + WRITES):
            seq = page.get_attribute("#lab", "data-seq")
            raise RuntimeError(f"the page's room applied {seq} actions")
        flying = _in_flight()
        page.wait_for_timeout(500)
        if throttle > 1:
            cdp = context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        probe = page.evaluate(PROBE_JS, {"windowMs": WINDOW_MS})
        if page.console_errors:
            raise RuntimeError(f"console errors: {page.console_errors}")
    finally:
        context.close()
    frames = [t for t in probe["frames"] if t >= probe["start"]]
    intervals = tuple(b - a for a, b in zip(frames, frames[1:], strict=False))
    return FrameRun(intervals, WINDOW_MS), flying


def network_rows(
    repeat: int, throttles: dict[float, int] | None = None, url: str | None = None
) -> list:
    """One row per CPU slow-down: median p95 frame time and fps of `repeat` runs, on a
    server of our own or the one at `url`."""
    with tempfile.TemporaryDirectory(prefix="netfps-") as var_dir:
        if url:
            return _rows(url, repeat, throttles or THROTTLES)
        with live_daphne(Path(var_dir)) as base_url:
            return _rows(base_url, repeat, throttles or THROTTLES)


def _rows(base_url: str, repeat: int, throttles: dict[float, int]) -> list:
    from playwright.sync_api import sync_playwright

    title = (
        f"Chromium (headless, software raster), quorum lab, at 1280×900 and 1920×1080: "
        f"{WRITES} writes to 5 copies, frames for {WINDOW_MS / 1000:g} s of flight, "
        f"median of {repeat} ({machine_load()})"
    )
    sizes = [(v["width"], v["height"]) for v in VIEWPORTS]
    runs: dict[tuple, list[tuple[FrameRun, int]]] = {
        (size, t): [] for size in sizes for t in throttles
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            # Rounds interleaved: a slow spell of a shared machine spreads over rows.
            for _ in range(repeat):
                for viewport, size in zip(VIEWPORTS, sizes, strict=True):
                    for throttle in throttles:
                        run = measure(browser, base_url, throttle, viewport)
                        runs[size, throttle].append(run)
        finally:
            browser.close()
    rows: list = [title]
    for width, height in sizes:
        for throttle, frames in throttles.items():
            done = runs[(width, height), throttle]
            flying = min(n for _, n in done)
            rows.append(
                FrameRuns(
                    what=(
                        f"{width}×{height}: {flying} messages in flight "
                        f"(target {IN_FLIGHT})"
                    ),
                    throttle=throttle,
                    runs=tuple(run for run, _ in done),
                    frames=frames,
                    valid=flying >= IN_FLIGHT,
                )
            )
    rows.append(f"(after the browser rows: {machine_load()})")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.browser_network_fps")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--cpu-throttle",
        type=float,
        nargs="+",
        default=list(THROTTLES),
        help="slow the page's main thread this many times (default: 1 and 4); a "
        "slow-down up to 1 is judged against 16.7 ms, any other against 33 ms",
    )
    parser.add_argument("--url", help="a running server (else one is started)")
    args = parser.parse_args(argv)
    throttles = {t: 1 if t <= 1 else 2 for t in args.cpu_throttle}
    rows = network_rows(args.repeat, throttles, args.url)
    print(render(rows, markdown=args.markdown))
    for row in rows:
        if not isinstance(row, str):
            print(f"  CPU {row.throttle:g}×: {row.spread()}")
    return 0 if all(isinstance(r, str) or r.passed for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
