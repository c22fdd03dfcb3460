"""Frame times in headless Chromium while hash-placement's key dots move (issue 11).

Issue 2 asked for 60 frames a second while 1,000 keys move; issue 11 turned it into a
target that can fail: the 95th-percentile frame time at most one 60 Hz frame (16.7 ms)
as the machine is, and at most two (33 ms) with the page's main thread slowed 4× (as a
phone is). The page draws a stable sample of the keys (240 per scheme card, three
cards), so what moves on screen is the sample's dots whose shard changed.

Method: a daphne of our own on a free loopback port (temporary PLAYGROUND_VAR_DIR), the
lab at 1280×900 and at 1920×1080 (a projector's) in headless Chromium, 1,000
registration keys loaded, then one action per scenario submitted through its form. A
requestAnimationFrame probe, injected with `page.evaluate` (nothing in the app's code),
records every frame's timestamp from the submit until no d3 transition is left under
#stage and no card paints dots on its canvas (polled every 100 ms), and until 100 ms
after a card's drawing last changed size (the drawings shrink back a moment after their
motion): the window holds the network round trip, the renderer's own planning, every
frame of flight and the frames that follow it. Each scenario runs on a fresh page
`repeat` times at each CPU slow-down (Chrome DevTools Protocol
`Emulation.setCPUThrottlingRate`, set after the keys are loaded and the setup is done,
so only the measured action is slowed; the raster and compositor threads are not), the
rounds interleaved. A row is judged on the median of its runs' p95 frame times, the
spread printed beside it; the machine's load average is printed before and after.

Run alone: `python -m benchmarks.browser_fps [--repeat R] [--cpu-throttle N [N ...]]
[--url http://127.0.0.1:8000]`.
"""

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.timing import FrameRun, FrameRuns, machine_load, render
from playground.liveserver import (
    CHROMIUM_ARGS,
    chromium_path,
    live_daphne,
    watch_errors,
)

VIEWPORT = {"width": 1280, "height": 900}
# a laptop's window and a projector's (issue 31: the cards grow with the screen)
VIEWPORTS = (VIEWPORT, {"width": 1920, "height": 1080})
KEYS = 1_000
# CPU slow-down -> the p95 target in 60 Hz frames: 16.7 ms as is, 33 ms slowed 4×.
THROTTLES = {1.0: 1, 4.0: 2}
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
  // A d3 transition still scheduled, or dots still moving on a card's canvas (its
  // painter marks the figure meanwhile: painter.js).
  const animating = () => {
    for (const el of stage.querySelectorAll("svg *")) if (el.__transition) return true;
    const figures = [...stage.querySelectorAll(".card-figure")];
    return figures.some((figure) => figure.__painting);
  };
  // A card's drawing shrinks back (a new viewBox) a moment after its motion: the window
  // runs until that has been drawn too.
  let reshaped = 0;
  const watch = new MutationObserver(() => (reshaped = performance.now()));
  watch.observe(stage, {subtree: true, attributes: true, attributeFilter: ["viewBox"]});
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
  let still = null;
  const end = await new Promise((resolve) => {
    const poll = setInterval(() => {
      const now = performance.now();
      if (framed === null && lab.dataset.seq !== seq0) framed = now;
      if (framed === null) return;
      if (animating()) {
        sawMotion = true;
        still = null;
      } else if (sawMotion || now - framed > 1000) {
        still ??= now;
        // (a shrink comes within 300 ms of the last motion)
        if (now - still < 300 || now - reshaped < 300) return;
        clearInterval(poll);
        resolve(Math.max(still, reshaped + 100));
      }
    }, 100);
  });
  watch.disconnect();
  running = false;
  const perCard = {};
  for (const card of document.querySelectorAll("article.scheme-card")) {
    // (the key dots' circles are a record in an inert template: card.js)
    const record = card.querySelector("template.dot-record").content;
    const moved = record.querySelectorAll(".bin-dots circle.moved");
    perCard[card.dataset.scheme] = moved.length;
  }
  return {start, framed, end, frames, perCard};
}
"""


@dataclass(frozen=True)
class Run:
    """The frames of one animation window, and the dots that flew in each card."""

    moved: dict[str, int]
    frames: FrameRun


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
    window = probe["end"] - probe["start"]
    return Run(probe["perCard"], FrameRun(tuple(intervals), window))


def open_lab(browser, base_url: str, viewport: dict = VIEWPORT):
    """A fresh page on the lab (seed 0) with 1,000 registration keys, drawn."""
    context = browser.new_context(viewport=viewport)
    page = watch_errors(context.new_page())
    page.goto(f"{base_url}/labs/hash-placement/?seed=0")
    page.wait_for_selector("#connection-status[data-state=open]")
    page.wait_for_function(
        "() => document.querySelectorAll('article.scheme-card g.bin').length === 12"
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


def browser_rows(repeat: int, throttles: dict[float, int] | None = None) -> list:
    """One row per scenario and CPU slow-down: median p95 frame time and fps."""
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory(prefix="fps-") as var_dir,
        live_daphne(Path(var_dir)) as base_url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            return _rows(browser, base_url, repeat, throttles or THROTTLES)
        finally:
            browser.close()


def _rows(browser, base_url: str, repeat: int, throttles: dict[float, int]) -> list:
    title = (
        f"Chromium (headless, software raster), {KEYS:,} keys, at 1280×900 and "
        f"1920×1080: frames while the sample's dots move, median of {repeat} "
        f"({machine_load()})"
    )
    runs: dict[tuple[str, str, float], list[Run]] = {}
    # Rounds interleaved: a slow spell of a shared machine spreads over every row.
    for _ in range(repeat):
        for viewport in VIEWPORTS:
            size = f"{viewport['width']}×{viewport['height']}"
            for throttle in throttles:
                for scenario in SCENARIOS:
                    run = _run(browser, base_url, scenario, throttle, viewport)
                    runs.setdefault((size, scenario.what, throttle), []).append(run)
    rows: list = [title]
    for size, scenario in (
        (f"{v['width']}×{v['height']}", scenario)
        for v in VIEWPORTS
        for scenario in SCENARIOS
    ):
        for throttle, frames in throttles.items():
            done = runs[size, scenario.what, throttle]
            moved = done[0].moved
            counts = "+".join(str(moved.get(s, 0)) for s in SCHEMES)
            rows.append(
                FrameRuns(
                    what=(
                        f"{size}, {scenario.what}: {sum(moved.values())} dots fly "
                        f"({counts})"
                    ),
                    throttle=throttle,
                    runs=tuple(r.frames for r in done),
                    frames=frames,
                    valid=all(r.moved == moved for r in done),
                )
            )
    rows.append(f"(after the browser rows: {machine_load()})")
    return rows


def _run(
    browser, base_url: str, scenario: Scenario, throttle: float, viewport: dict
) -> Run:
    page = open_lab(browser, base_url, viewport)
    try:
        run = measure(page, scenario, throttle)
        if page.console_errors:
            raise RuntimeError(f"console errors: {page.console_errors}")
        return run
    finally:
        page.context.close()


def main(argv: list[str] | None = None) -> int:
    """Print the browser rows; `--url` measures an already running server instead."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.browser_fps")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--url", help="a running server (else one is started)")
    parser.add_argument(
        "--cpu-throttle",
        type=float,
        nargs="+",
        default=list(THROTTLES),
        help="slow the page's main thread this many times (default: 1 and 4); a "
        "slow-down up to 1 is judged against 16.7 ms, any other against 33 ms",
    )
    args = parser.parse_args(argv)
    throttles = {t: 1 if t <= 1 else 2 for t in args.cpu_throttle}
    if args.url:
        rows = _rows_against(args.url, args.repeat, throttles)
    else:
        rows = browser_rows(args.repeat, throttles)
    print(render(rows, markdown=args.markdown))
    for row in rows:
        if not isinstance(row, str):
            print(f"  {row.what}, CPU {row.throttle:g}×: {row.spread()}")
    return 0 if all(isinstance(r, str) or r.passed for r in rows) else 1


def _rows_against(base_url: str, repeat: int, throttles: dict[float, int]) -> list:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            return _rows(browser, base_url, repeat, throttles)
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
