"""Frames per second in headless Chromium while hash-placement's key dots move.

The issue's target is the browser keeping 60 frames a second while 1,000 keys move. The
page draws a stable sample of the keys (240 per scheme card, three cards), so what moves
on screen is the sample's dots whose shard changed: this measures those animations.

Method: a daphne of our own on a free loopback port (temporary PLAYGROUND_VAR_DIR), the
lab at 1280×900 in headless Chromium, 1,000 registration keys loaded, then one action
per scenario submitted through its form. A requestAnimationFrame probe, injected with
`page.evaluate` (nothing in the app's code), records every frame's timestamp from the
submit until no d3 transition is left under #stage and no card paints dots on its canvas
(polled every 100 ms): the window holds the network round trip, the renderer's own
planning and every frame of flight.
Each scenario runs on a fresh page `repeat` times; the row is the run with the median
fps.

`--cpu-throttle N` slows the page's main thread N times (Chrome DevTools Protocol,
`Emulation.setCPUThrottlingRate`, set after the keys are loaded): a repeatable stand-in
for a slower or busier machine, to compare renderers; the target is judged without it.

Run alone: `python -m benchmarks.browser_fps [--repeat R] [--cpu-throttle N] [--url
http://127.0.0.1:8000]`.
"""

import argparse
import math
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.timing import FpsRow, render
from playground.liveserver import (
    CHROMIUM_ARGS,
    chromium_path,
    live_daphne,
    watch_errors,
)

VIEWPORT = {"width": 1280, "height": 900}
KEYS = 1_000
FRAME_MS = 1000 / 60
FPS_TARGET = 58.0
SCHEMES = ("mod", "partitions", "ring")


@dataclass(frozen=True)
class Scenario:
    """One measured change: `setup` actions first (not measured), then `action`."""

    what: str
    action: str
    args: dict
    setup: tuple[tuple[str, dict], ...] = ()


SCENARIOS = (
    Scenario("add a shard, 4 → 5", "add_shard", {}),
    Scenario("set shards 4 → 12", "set_shards", {"count": 12}),
    Scenario(
        "worst case: set shards 1 → 12 (11 of 12 dots fly)",
        "set_shards",
        {"count": 12},
        setup=(("set_shards", {"count": 1}),),
    ),
)

# Submit one action through its form (the page's own handler sends it) and measure every
# frame until the animation is over. Resolves with the probe's numbers; no globals.
PROBE_JS = """
async ({action, args}) => {
  const stage = document.getElementById("stage");
  const lab = document.getElementById("lab");
  const form = document.querySelector(`form[data-action="${action}"]`);
  for (const [name, value] of Object.entries(args)) {
    const field = document.getElementById(`field-${action}-${name}`);
    field.value = String(value);
  }
  // A d3 transition still scheduled, or dots still drawn on a card's canvas (its SVG
  // groups are transparent meanwhile).
  const animating = () => {
    for (const el of stage.querySelectorAll("svg *")) if (el.__transition) return true;
    return stage.querySelector(".card-front g[style*=opacity]") !== null;
  };
  const seq0 = lab.dataset.seq;
  const frames = [];
  let running = true;
  const tick = (ts) => {
    frames.push(ts);
    if (running) requestAnimationFrame(tick);
  };
  await new Promise((resolve) => requestAnimationFrame(resolve));
  requestAnimationFrame(tick);
  const start = performance.now();
  form.requestSubmit();
  let framed = null;
  let sawMotion = false;
  const end = await new Promise((resolve) => {
    const poll = setInterval(() => {
      const now = performance.now();
      if (framed === null && lab.dataset.seq !== seq0) framed = now;
      if (framed === null) return;
      if (animating()) sawMotion = true;
      else if (sawMotion || now - framed > 1000) {
        clearInterval(poll);
        resolve(now);
      }
    }, 100);
  });
  running = false;
  const perCard = {};
  for (const card of document.querySelectorAll("article.scheme-card")) {
    const moved = card.querySelectorAll(".bin-dots circle.moved");
    perCard[card.dataset.scheme] = moved.length;
  }
  return {start, framed, end, frames, perCard};
}
"""


@dataclass(frozen=True)
class Run:
    """The frames of one animation window."""

    moved: dict[str, int]
    intervals: list[float]  # ms between consecutive frames in the window
    window_ms: float

    @property
    def fps(self) -> float:
        span = sum(self.intervals)
        return 1000 * len(self.intervals) / span if span else 0.0

    @property
    def p95_ms(self) -> float:
        ordered = sorted(self.intervals)
        return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]

    @property
    def slow_share(self) -> float:
        # rAF timestamps are vsync-aligned: a frame on time is 16.67 ms (± a few µs).
        slow = sum(1 for ms in self.intervals if ms > FRAME_MS + 0.05)
        return slow / len(self.intervals) if self.intervals else 0.0


def measure(page, scenario: Scenario, throttle: float = 1.0) -> Run:
    """One run of `scenario` on `page` (the lab already open with its keys loaded)."""
    for action, args in scenario.setup:
        _act(page, action, args)
    page.wait_for_timeout(500)
    if throttle > 1:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    probe = page.evaluate(PROBE_JS, {"action": scenario.action, "args": scenario.args})
    frames = [t for t in probe["frames"] if probe["start"] <= t <= probe["end"]]
    intervals = [b - a for a, b in zip(frames, frames[1:], strict=False)]
    if len(intervals) < 2:
        raise RuntimeError(f"{scenario.what}: no animation frames were recorded")
    return Run(probe["perCard"], intervals, probe["end"] - probe["start"])


def open_lab(browser, base_url: str):
    """A fresh page on the lab (seed 0) with 1,000 registration keys, drawn."""
    context = browser.new_context(viewport=VIEWPORT)
    page = watch_errors(context.new_page())
    page.goto(f"{base_url}/labs/hash-placement/?seed=0")
    page.wait_for_selector("#connection-status[data-state=open]")
    page.wait_for_function(
        "document.querySelectorAll('article.scheme-card g.bin').length === 12"
    )
    page.select_option(
        'form[data-action="load_keys"] select', index=_registration(page)
    )
    _act(page, "load_keys", {"count": KEYS})
    return page


def _registration(page) -> int:
    labels = page.locator(
        'form[data-action="load_keys"] select option'
    ).all_inner_texts()
    return next(i for i, label in enumerate(labels) if "N12345" in label)


def _act(page, action: str, args: dict) -> None:
    """Submit an action through its form and wait until its animation has ended."""
    page.evaluate(PROBE_JS, {"action": action, "args": args})


def browser_rows(repeat: int, throttle: float = 1.0) -> list:
    """One row per scenario: dots moved, frames, mean fps, p95 and slow frames."""
    from playwright.sync_api import sync_playwright

    slowed = f", main thread slowed {throttle:g}×" if throttle > 1 else ""
    rows: list = [
        f"Chromium (headless, software raster), {KEYS:,} keys, 1280×900{slowed}: "
        f"frames while the sample's dots move (median of {repeat})"
    ]
    with (
        tempfile.TemporaryDirectory(prefix="fps-") as var_dir,
        live_daphne(Path(var_dir)) as base_url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            for scenario in SCENARIOS:
                runs = _runs(browser, base_url, scenario, repeat, throttle)
                rows.append(_row(scenario, runs))
        finally:
            browser.close()
    return rows


def _runs(
    browser, base_url: str, scenario: Scenario, repeat: int, throttle: float = 1.0
) -> list[Run]:
    runs = []
    for _ in range(repeat):
        page = open_lab(browser, base_url)
        try:
            runs.append(measure(page, scenario, throttle))
            if page.console_errors:
                raise RuntimeError(f"console errors: {page.console_errors}")
        finally:
            page.context.close()
    return runs


def _row(scenario: Scenario, runs: list[Run]) -> FpsRow:
    ordered = sorted(runs, key=lambda r: r.fps)
    run = ordered[(len(ordered) - 1) // 2]
    moved = "+".join(str(run.moved.get(s, 0)) for s in SCHEMES)
    fps_all = ", ".join(f"{r.fps:.1f}" for r in runs)
    return FpsRow(
        what=f"{scenario.what}: {sum(run.moved.values())} dots fly ({moved})",
        window_s=run.window_ms / 1000,
        frames=len(run.intervals) + 1,
        fps=run.fps,
        p95_ms=run.p95_ms,
        slow_share=run.slow_share,
        target=f"≥ {FPS_TARGET:g} fps mean",
        passed=run.fps >= FPS_TARGET,
        note="" if len(runs) == 1 else f"runs: {fps_all} fps",
    )


def main(argv: list[str] | None = None) -> int:
    """Print the browser rows; `--url` measures an already running server instead."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.browser_fps")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--url", help="a running server (else one is started)")
    parser.add_argument(
        "--cpu-throttle",
        type=float,
        default=1.0,
        help="slow the page's main thread this many times (default 1: not at all)",
    )
    args = parser.parse_args(argv)
    if args.url:
        rows = _rows_against(args.url, args.repeat, args.cpu_throttle)
    else:
        rows = browser_rows(args.repeat, args.cpu_throttle)
    print(render(rows, markdown=args.markdown))
    for row in rows:
        if not isinstance(row, str) and row.note:
            print(f"  {row.what}: {row.note}")
    return 0 if all(isinstance(r, str) or r.passed for r in rows) else 1


def _rows_against(base_url: str, repeat: int, throttle: float = 1.0) -> list:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            return [
                _row(s, _runs(browser, base_url, s, repeat, throttle))
                for s in SCENARIOS
            ]
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
