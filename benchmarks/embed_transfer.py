"""Bytes an embed transfers before its lab is first drawn, in headless Chromium.

The issue's target: opening an embed transfers under 300 KB before the first frame is
drawn.

Method: a daphne of our own on a free loopback port (temporary PLAYGROUND_VAR_DIR), one
fresh browser context per lab (an empty cache, like a reader's first visit), the embed
of docs/embed-example.html's link for that lab (`/embed/<slug>/#link=…`) at 800×640.
The Chrome DevTools Protocol's Network domain counts what arrives: the
`encodedDataLength` of every `Network.loadingFinished` (the bytes on the wire for a
response: headers and body, compressed if it was) plus the payload length of every
`Network.webSocketFrameReceived` (the hello of the link's room: a short link rides in
the socket's address; the 101 handshake's headers are not counted). "Drawn" is the
embed's `data-drawn` attribute on #lab, which static/js/embed.js sets in the animation
frame after the renderer has mounted the link's state (a MutationObserver injected
before the page loads calls back into Python, and the count at that moment is the
row's).

The server is the playground as configured (static files gzipped once by collectstatic
and served by playground/staticserve.py; docs/benchmarks.md has the numbers from before
they were compressed).

Run alone: `python -m benchmarks.embed_transfer [--repeat R] [--url http://…]`.
"""

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.timing import Row, Timing
from playground.liveserver import (
    CHROMIUM_ARGS,
    ROOT,
    chromium_path,
    migrate,
    server_env,
    start_daphne,
)

TARGET_BYTES = 300 * 1024
VIEWPORT = {"width": 800, "height": 640}
EXAMPLE = ROOT / "docs" / "embed-example.html"
DRAWN_PROBE = """
(() => {
  const seen = () => {
    const lab = document.getElementById("lab");
    if (lab && lab.dataset.drawn) { window.__embedDrawn(); return true; }
    return false;
  };
  const observer = new MutationObserver(() => { if (seen()) observer.disconnect(); });
  document.addEventListener("DOMContentLoaded", () => {
    if (!seen()) observer.observe(document.documentElement, {
      subtree: true, attributes: true, attributeFilter: ["data-drawn"],
    });
  });
})();
"""


def example_links() -> dict[str, str]:
    """The lab → link pairs of docs/embed-example.html."""
    found = re.findall(
        r'/embed/([a-z-]+)/[^"#]*#link=([A-Za-z0-9._-]+)"', EXAMPLE.read_text()
    )
    return dict(found)


def measure(browser, url: str) -> dict:
    """Bytes (HTTP and websocket) received before the embed at `url` was drawn."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    http: dict[str, int] = {}
    urls: dict[str, str] = {}
    ws = {"frames": 0, "bytes": 0}
    snapshot: dict = {}

    def on_response(event):
        urls[event["requestId"]] = event["response"]["url"]

    def on_finished(event):
        http[event["requestId"]] = int(event["encodedDataLength"])

    def on_frame(event):
        ws["frames"] += 1
        ws["bytes"] += len(event["response"]["payloadData"].encode())

    def on_drawn():
        if not snapshot:
            snapshot.update(
                http=sum(http.values()),
                ws=ws["bytes"],
                frames=ws["frames"],
                files={urls.get(k, k): v for k, v in http.items()},
                at=time.perf_counter(),
            )

    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.loadingFinished", on_finished)
    cdp.on("Network.webSocketFrameReceived", on_frame)
    page.expose_function("__embedDrawn", on_drawn)
    page.add_init_script(DRAWN_PROBE)
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#lab[data-drawn]", timeout=20_000)
    deadline = time.perf_counter() + 5
    while not snapshot and time.perf_counter() < deadline:
        page.wait_for_timeout(20)
    state = page.locator("#lab").get_attribute("data-state")
    context.close()
    if not snapshot:
        raise RuntimeError(f"the embed at {url} never said it was drawn")
    snapshot["ms"] = (snapshot.pop("at") - started) * 1000
    snapshot["state"] = state
    return snapshot


def run_server(label: str, env_extra: dict, repeat: int, show_files: bool) -> list:
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        var = Path(tmp)
        env = server_env(var, **env_extra)
        migrate(env)
        server = start_daphne(var, env)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
                )
                for slug, link in example_links().items():
                    url = f"{server.url}/embed/{slug}/#link={link}"
                    runs = sorted(
                        (measure(browser, url) for _ in range(repeat)),
                        key=lambda r: r["http"] + r["ws"],
                    )
                    row = runs[len(runs) // 2]
                    rows.append((label, slug, row))
                    if show_files:
                        for name, size in sorted(
                            row["files"].items(), key=lambda x: -x[1]
                        ):
                            print(f"    {size:>9,}  {name}", file=sys.stderr)
                browser.close()
        finally:
            server.stop()
    return rows


def transfer_rows(repeat: int = 3, show_files: bool = False) -> list:
    """(server, lab, measurement) for the server as configured (static files gzipped
    by collectstatic, served by playground/staticserve.py)."""
    return run_server("as configured", {}, repeat, show_files)


def table_rows(repeat: int = 3) -> list:
    """The measurements as rows of `python -m benchmarks`' table."""
    rows: list = [
        "Embeds in Chromium: bytes transferred before the link's state is drawn"
    ]
    for _, slug, row in transfer_rows(repeat):
        total = row["http"] + row["ws"]
        rows.append(
            Row(
                f"{slug} embed: {row['http']:,} B over HTTP, {row['ws']:,} B of "
                f"websocket frames",
                Timing(0.0, row["ms"] / 1000),
                None,
                f"{total / 1024:,.1f} KB",
                "< 300 KB",
                total < TARGET_BYTES and row["state"] == "link",
            )
        )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.embed_transfer")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", action="store_true", help="list every response")
    args = parser.parse_args(argv)
    rows = transfer_rows(args.repeat, args.files)
    print(
        "| server | embed | HTTP bytes | websocket bytes (frames) | total | drawn at "
        "| target |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    missed = False
    for label, slug, row in rows:
        total = row["http"] + row["ws"]
        ok = total < TARGET_BYTES and row["state"] == "link"
        missed |= not ok
        print(
            f"| {label} | {slug} | {row['http']:,} | {row['ws']:,} ({row['frames']}) | "
            f"{total / 1024:,.1f} KB | {row['ms']:,.0f} ms | "
            f"{'ok' if ok else 'MISS'} (< 300 KB) |"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
