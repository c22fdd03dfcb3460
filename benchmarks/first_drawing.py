"""Time to each lab's first drawing at 150 ms round trip, modulepreload on and off.

The issue's target (issue 10): under 1.0 s from the start of the navigation to the
first drawing at 150 ms round trip, with each page's module graph preloaded.

The first drawing is the performance mark "lab:first-drawing" that static/js/lab-page.js
sets in the animation frame after the lab's renderer has mounted the room's first
snapshot (the same frame in which #lab gets `data-drawn`); its startTime counts from
the navigation's start. Everything a page needs before it comes into it: the HTML, the
styles and the translation catalogue, every ES module, the websocket and its hello.

Method: daphne processes of our own on free loopback ports (temporary
PLAYGROUND_VAR_DIR each), two per transport, one with PLAYGROUND_MODULEPRELOAD=1 and
one with =0 (the page lists only its own module, as before: the peer). Each run is a
fresh browser context (an empty cache, like a first visit) at 1280×800 whose network
the Chrome DevTools Protocol slows (`Network.emulateNetworkConditions`: 150 ms of
latency on every request and on the websocket's handshake; throughput not limited, as
no page here comes near a real link's, and because DevTools' throughput throttle now
and then held every request of a page that starts forty at once for 20 s and more:
3 page loads in 40 at 6 MB/s, none in 40 unthrottled). A third case, the floor, is
the preloading server with no latency added: what the machine's own work (the
server's and the browser's) costs at that moment; it is measured on the transport the
target is checked on. The cases take turns lab by lab, so a slow spell of the shared
machine weighs on all of them; each server first serves one page, uncounted. A row is
the median of the runs; the ratio is preload on / preload off, one per turn (the two
loaded in the same turn), their median with the lowest and highest.

Two transports:
- HTTP/1.1, daphne as `make run` serves it. Chromium opens at most 6 connections to a
  host, so the 31–44 modules come 6 at a time whether they are preloaded or found one
  import after another: preloading cannot make them one round trip here.
- HTTP/2, daphne's own TLS endpoint (a self-signed certificate made for the run) with
  Twisted's http2 extra, as a deployment's HTTPS front serves the site: every preload
  is asked for at once on one connection. The target is checked on these rows. They
  are left out, with a note, where h2 is not installed (`pip install -e ".[bench]"`).

Run alone: `python -m benchmarks.first_drawing [--repeat R] [--labs a,b]`.
"""

import argparse
import datetime
import importlib.util
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import Paired, Row, Timing
from playground.liveserver import (
    CHROMIUM_ARGS,
    chromium_path,
    migrate,
    server_env,
    start_daphne,
)
from simulators.labs import LABS

TARGET_MS = 1000
LATENCY_MS = 150
THROUGHPUT = -1  # not throttled (see above)
VIEWPORT = {"width": 1280, "height": 800}
MARK = "lab:first-drawing"
# when the mark was set, and what had arrived by then
READ_RUN = """
(mark) => {
  const drawn = performance.getEntriesByName(mark, "mark")[0];
  const modules = performance.getEntriesByType("resource")
    .filter((entry) => new URL(entry.name).pathname.endsWith(".js"));
  return {
    ms: drawn.startTime,
    modules: modules.length,
    modules_ms: Math.max(...modules.map((entry) => entry.responseEnd)),
    protocols: [...new Set(modules.map((entry) => entry.nextHopProtocol))],
  };
}
"""


def http2_available() -> bool:
    """Whether daphne (Twisted) can speak HTTP/2 here: its http2 extra's packages."""
    return all(importlib.util.find_spec(name) for name in ("h2", "priority"))


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A private key and a certificate for 127.0.0.1, valid for a day."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    key_path, cert_path = directory / "key.pem", directory / "cert.pem"
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


def first_drawing(browser, url: str, latency_ms: int) -> dict:
    """One first visit of `url` at `latency_ms` round trip: when it was first drawn.

    A visit that is not drawn within STALL_MS is counted as a stall and made again
    in a fresh context (none has been seen since the throughput is not throttled);
    after STALL_TRIES the benchmark gives up."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for stalls in range(STALL_TRIES):
        try:
            return {**visit(browser, url, latency_ms), "stalls": stalls}
        except PlaywrightTimeout:
            continue
    raise RuntimeError(f"{url} was not drawn in {STALL_TRIES} tries")


STALL_MS = 15_000
STALL_TRIES = 3


def visit(browser, url: str, latency_ms: int) -> dict:
    """One visit of `url` in a fresh context; Playwright's TimeoutError if it stalls."""
    context = browser.new_context(viewport=VIEWPORT, ignore_https_errors=True)
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": latency_ms,
                "downloadThroughput": THROUGHPUT,
                "uploadThroughput": THROUGHPUT,
            },
        )
        page.goto(url, wait_until="commit", timeout=STALL_MS)
        page.wait_for_selector("#lab[data-drawn]", timeout=STALL_MS)
        page.wait_for_function(
            "(mark) => performance.getEntriesByName(mark).length > 0",
            arg=MARK,
            timeout=STALL_MS,
        )
        return page.evaluate(READ_RUN, MARK)
    finally:
        context.close()


# case -> (modulepreload, latency in ms): the measured case, its peer, and the floor
CASES = {"on": (True, LATENCY_MS), "off": (False, LATENCY_MS), "floor": (True, 0)}


def run_transport(browser, tmp: Path, https: bool, labs: list[str], cases, repeat):
    """{(lab, case): [run, …]} for one transport, the cases taking turns."""
    tls = self_signed(tmp) if https else None
    servers = {}
    try:
        for preload in (True, False):
            var = tmp / f"preload-{int(preload)}"
            var.mkdir()
            env = server_env(var, PLAYGROUND_MODULEPRELOAD="1" if preload else "0")
            migrate(env)
            servers[preload] = start_daphne(var, env, tls=tls)
        for server in servers.values():  # uncounted: each server's first page
            first_drawing(browser, f"{server.url}/labs/{labs[0]}/", 0)
        runs: dict[tuple[str, str], list[dict]] = {}
        for turn in range(repeat):
            for slug in labs:
                shift = turn % len(cases)
                for name in cases[shift:] + cases[:shift]:
                    preload, latency_ms = CASES[name]
                    url = f"{servers[preload].url}/labs/{slug}/"
                    runs.setdefault((slug, name), []).append(
                        first_drawing(browser, url, latency_ms)
                    )
        return runs
    finally:
        for server in servers.values():
            server.stop()


def measure(repeat: int, labs: list[str] | None = None) -> list[dict]:
    """One summary per transport, lab and case (medians of `repeat` runs)."""
    from playwright.sync_api import sync_playwright

    labs = labs or list(LABS)
    # the floor is measured on the transport the target is checked on
    if http2_available():
        transports = [("HTTP/1.1", False, ["on", "off"]), ("HTTP/2", True, [*CASES])]
    else:
        transports = [("HTTP/1.1", False, [*CASES])]
    results = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(),
            headless=True,
            args=[*CHROMIUM_ARGS, "--ignore-certificate-errors"],
        )
        try:
            for transport, https, cases in transports:
                folder = Path(tmp) / transport.replace("/", "")
                folder.mkdir()
                runs = run_transport(browser, folder, https, labs, cases, repeat)
                for slug in labs:
                    for name in cases:
                        found = runs[(slug, name)]
                        results.append(summary(transport, slug, name, found))
        finally:
            browser.close()
    return with_ratios(results)


def summary(transport: str, slug: str, case: str, runs: list[dict]) -> dict:
    """The median first drawing of a case, and what its runs had in common."""
    return {
        "transport": transport,
        "lab": slug,
        "case": case,
        "ms": statistics.median(r["ms"] for r in runs),
        "modules_ms": statistics.median(r["modules_ms"] for r in runs),
        "modules": max(r["modules"] for r in runs),
        "protocols": sorted({p for r in runs for p in r["protocols"]}),
        "runs_ms": [round(r["ms"]) for r in runs],
        "stalls": sum(r["stalls"] for r in runs),
    }


def with_ratios(results: list[dict]) -> list[dict]:
    """Preload on against its peer (off): one ratio per turn, the two run in the
    same turn (`Paired`: the median and the spread); the target where it holds."""
    off = {(r["transport"], r["lab"]): r for r in results if r["case"] == "off"}
    for result in results:
        measured = result["case"] == "on"
        peer = off[(result["transport"], result["lab"])]
        result["ratio"] = (
            Paired(
                tuple(
                    on / before
                    for on, before in zip(
                        result["runs_ms"], peer["runs_ms"], strict=True
                    )
                )
            )
            if measured
            else None
        )
        targeted = measured and result["transport"] == "HTTP/2"
        result["passed"] = result["ms"] < TARGET_MS if targeted else None
    return results


WORDS = {
    "on": f"modulepreload on, {LATENCY_MS} ms",
    "off": f"modulepreload off (the peer), {LATENCY_MS} ms",
    "floor": "modulepreload on, no added latency (the floor)",
}


def first_drawing_rows(repeat: int = 3) -> list:
    """The measurements as rows of `python -m benchmarks`' table."""
    rows: list = [
        f"First drawing of each lab page in Chromium at {LATENCY_MS} ms round trip, "
        "modulepreload on against off"
    ]
    if not http2_available():
        rows.append("(no HTTP/2 rows: Twisted's http2 extra, h2, is not installed)")
    results = measure(repeat)
    for r in results:
        rows.append(
            Row(
                f"{r['lab']} over {r['transport']}, {WORDS[r['case']]}; "
                f"{r['modules']} modules, the last at {r['modules_ms'] / 1000:.2f} s",
                Timing(0.0, r["ms"] / 1000),
                None,
                "" if r["ratio"] is None else f"{r['ratio'].text()} off",
                "" if r["passed"] is None else f"< {TARGET_MS / 1000:.1f} s",
                r["passed"],
            )
        )
    stalls = stall_note(results)
    return rows + ([f"({stalls})"] if stalls else [])


def stall_note(results: list[dict]) -> str:
    """Which cases had a visit that stalled and was made again ("" if none)."""
    stalled = [
        f"{r['lab']} over {r['transport']} ({WORDS[r['case']]}): {r['stalls']}"
        for r in results
        if r["stalls"]
    ]
    if not stalled:
        return ""
    return "visits that stalled and were made again: " + "; ".join(stalled)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_drawing")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--labs", help="comma-separated slugs (default: every lab)")
    args = parser.parse_args(argv)
    labs = args.labs.split(",") if args.labs else None
    results = measure(args.repeat, labs)
    print(
        "| transport | lab | case | modules | last module in | "
        "first drawing (median) | runs | on / off | target |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | --- |")
    verdicts = {None: "", True: "PASS (< 1.0 s)", False: "MISS (< 1.0 s)"}
    for r in results:
        ratio = "" if r["ratio"] is None else r["ratio"].text()
        print(
            f"| {r['transport']} ({', '.join(r['protocols'])}) | {r['lab']} | "
            f"{WORDS[r['case']]} | {r['modules']} | {r['modules_ms']:,.0f} ms | "
            f"{r['ms']:,.0f} ms | {', '.join(map(str, r['runs_ms']))} | {ratio} | "
            f"{verdicts[r['passed']]} |"
        )
    if not http2_available():
        print("HTTP/2 left out: install Twisted's http2 extra (the bench extras).")
    if stalls := stall_note(results):
        print(stalls[0].upper() + stalls[1:] + ".")
    return 1 if any(r["passed"] is False for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
