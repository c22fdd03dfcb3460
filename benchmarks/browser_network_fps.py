"""Frames per second in headless Chromium with 200 messages in flight (issue 3).

Method: a daphne of our own on a free loopback port (temporary PLAYGROUND_VAR_DIR), the
quorum lab at 1280×900 in headless Chromium, five copies, paused. Fifty writes are
submitted through the page's own Write form while the clock stands still: each sends the
write to the four other copies, so 200 messages wait on the wire. Then Play is pressed
at 1/100× speed (latencies of 15–60 ms fly for 1.5–6 s) and a requestAnimationFrame
probe, injected with `page.evaluate` (nothing in the app's code), records every frame
for two seconds. How many messages were on the wire when Play was pressed is counted by
the simulator itself, replaying the same seed and actions in this process (same seed and
actions, same state: the page's room did exactly this).

Run alone: `python -m benchmarks.browser_network_fps [--repeat R]`.
"""

import argparse
import math
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import FpsRow, render
from playground.liveserver import (
    CHROMIUM_ARGS,
    chromium_path,
    live_daphne,
    watch_errors,
)

VIEWPORT = {"width": 1280, "height": 900}
WRITES = 50
IN_FLIGHT = 200
WINDOW_MS = 2_000
FRAME_MS = 1000 / 60
FPS_TARGET = 58.0

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
        f"Number(document.getElementById('lab').dataset.seq) > {seq}"
    )


def _in_flight() -> int:
    """Messages on the wire after the page's actions, replayed in this process."""
    from simulators.labs.quorum import QuorumLab

    lab = QuorumLab(seed=0)
    lab.apply("set_copies", {"copies": 5})
    lab.apply("set_speed", {"speed": 10})
    defaults = {p.name: p.default for p in lab.action_spec("write").params}
    for _ in range(WRITES):
        lab.apply("write", defaults)
    return len(lab.snapshot()["network"]["in_flight"])


def _set_speed(page, label: str) -> None:
    seq = int(page.get_attribute("#lab", "data-seq") or "0")
    page.select_option("#timeline-speed", label=label)
    page.wait_for_function(
        f"Number(document.getElementById('lab').dataset.seq) > {seq}"
    )


def measure(browser, base_url: str) -> tuple[list[float], int]:
    """One run: frame intervals while 200 messages fly, and the count on the wire."""
    context = browser.new_context(viewport=VIEWPORT)
    page = watch_errors(context.new_page())
    try:
        page.goto(f"{base_url}/labs/quorum/?seed=0")
        page.wait_for_selector("#connection-status[data-state=open]")
        _submit(page, "set_copies", {"copies": 5})
        _set_speed(page, "1/100×")
        for _ in range(WRITES):
            _submit(page, "write", {})
        if page.get_attribute("#lab", "data-seq") != str(2 + WRITES):
            raise RuntimeError("the page's room did not apply every action")
        flying = _in_flight()
        probe = page.evaluate(PROBE_JS, {"windowMs": WINDOW_MS})
        if page.console_errors:
            raise RuntimeError(f"console errors: {page.console_errors}")
    finally:
        context.close()
    frames = [t for t in probe["frames"] if t >= probe["start"]]
    return [b - a for a, b in zip(frames, frames[1:], strict=False)], flying


def network_rows(repeat: int) -> list:
    """One row: the run with the median frame rate of `repeat`."""
    from playwright.sync_api import sync_playwright

    runs = []
    with (
        tempfile.TemporaryDirectory(prefix="netfps-") as var_dir,
        live_daphne(Path(var_dir)) as base_url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            runs = [measure(browser, base_url) for _ in range(repeat)]
        finally:
            browser.close()
    rates = sorted((1000 * len(i) / sum(i), i, n) for i, n in runs)
    fps, intervals, flying = rates[(len(rates) - 1) // 2]
    ordered = sorted(intervals)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    slow = sum(1 for ms in intervals if ms > FRAME_MS + 0.05) / len(intervals)
    return [
        f"Chromium (headless, software raster), quorum lab, 1280×900: {WRITES} writes "
        f"to 5 copies, frames for {WINDOW_MS / 1000:g} s of flight "
        f"(median of {repeat})",
        FpsRow(
            what=f"{flying} messages in flight (target {IN_FLIGHT})",
            window_s=WINDOW_MS / 1000,
            frames=len(intervals) + 1,
            fps=fps,
            p95_ms=p95,
            slow_share=slow,
            target=f"≥ {FPS_TARGET:g} fps mean",
            passed=fps >= FPS_TARGET and flying >= IN_FLIGHT,
            note=", ".join(f"{r[0]:.1f}" for r in rates),
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.browser_network_fps")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = network_rows(args.repeat)
    print(render(rows, markdown=args.markdown))
    print(f"  runs: {rows[-1].note} fps")
    return 0 if rows[-1].passed else 1


if __name__ == "__main__":
    sys.exit(main())
