"""graph-traversal in real headless Chromium against a live daphne.

The course's questions pressed with the mouse (one stop: LAX → DEN → JFK, 380 minutes;
within three edges: SEA, ORD and ATL two edges away; the fewest stops to SEA: LAX →
SFO → SEA, the two searches meeting at SFO) and with the keyboard; a bad pattern
refused at its column under the Run form; the graph grown 10× with the costs from
before beside the costs now, the same edges read; the generated SQL shown; a node's
menu from the keyboard; the expansion played depth by depth (and not with reduced
motion); the first screen at laptop and phone widths.
"""

import re

import pytest
from playwright.sync_api import expect

from playground.liveserver import wait_until_still

pytestmark = pytest.mark.browser

SKIP_TOUR = (
    "localStorage.setItem('playground:tour:graph-traversal',"
    " JSON.stringify({state: 'skipped', step: 0}))"
)


@pytest.fixture
def calm(kept_contexts):
    """A page that prefers reduced motion (the answer is drawn at once), 1280 × 800."""
    page = kept_contexts[0].new_page(
        {"width": 1280, "height": 800}, reduced_motion="reduce"
    )
    yield page
    page.close()


def open_lab(page, url, seed=1):
    # the tour skipped: its card would move the stage down after the first frame
    page.add_init_script(SKIP_TOUR)
    page.goto(f"{url}/labs/graph-traversal/?seed={seed}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#lab")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#stage .gt-node")).to_have_count(8)


def seq(page):
    return page.locator("#lab").get_attribute("data-seq")


def next_frame(page, before):
    page.wait_for_function(
        "before => document.querySelector('#lab').dataset.seq !== before",
        arg=before,
    )


def ask(page, question):
    """Press the course's question `question` on the stage, and wait for its frame."""
    before = seq(page)
    page.locator(f'#stage [data-spot="course-{question}"]').click()
    next_frame(page, before)


def node(page, name):
    return page.locator(f'#stage .gt-node[data-node="{name}"]')


def test_the_courses_questions_by_mouse(calm, live_server_url):
    open_lab(calm, live_server_url)
    buttons = calm.locator("#stage .gt-question")
    expect(buttons).to_have_count(7)
    expect(buttons.first).to_have_text("LAX → JFK direct")
    expect(calm.locator('#stage .gt-question[aria-pressed="true"]')).to_have_count(0)

    ask(calm, "one_stop")
    pressed = calm.locator('#stage [data-spot="course-one_stop"]')
    expect(pressed).to_have_attribute("aria-pressed", "true")
    # pressed: a mark before its words, not colour alone (the name stays the label's)
    assert "✓" in pressed.evaluate("b => getComputedStyle(b, '::before').content")
    paths = calm.locator("#side .gt-paths li")
    expect(paths).to_have_count(1)
    expect(paths.first).to_have_text("LAX → DEN → JFK 380 min")
    for name in ("LAX", "DEN", "JFK"):
        expect(node(calm, name)).to_have_class(re.compile(r"\bon-path\b"))
    expect(node(calm, "SFO")).not_to_have_class(re.compile(r"\bon-path\b"))
    expect(calm.locator("#stage .gt-readout")).to_contain_text("1 path")
    expect(calm.locator("#latest")).to_contain_text(
        "Found 1 path: LAX → DEN → JFK, 380 minutes"
    )
    # reduced motion: the answer at once, never the depths one by one
    expect(calm.locator("#stage .gt-lab")).to_have_attribute("data-playing", "false")

    ask(calm, "within_three")
    expect(calm.locator('#stage [data-spot="course-within_three"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(pressed).to_have_attribute("aria-pressed", "false")
    for name in ("SEA", "ORD", "ATL"):
        badge = calm.locator(f'#stage .gt-sign[data-kind="depth"][data-node="{name}"]')
        expect(badge).to_have_text("2")
    for name in ("SFO", "DEN", "DFW", "JFK"):
        badge = calm.locator(f'#stage .gt-sign[data-kind="depth"][data-node="{name}"]')
        expect(badge).to_have_text("1")
    expect(calm.locator("#side .gt-ends")).to_contain_text(
        "2 edges away: ATL, ORD, SEA"
    )

    ask(calm, "fewest_to_sea")
    expect(calm.locator("#side .gt-paths li").first).to_contain_text("LAX → SFO → SEA")
    expect(node(calm, "SFO")).to_have_class(re.compile(r"\bis-meeting\b"))
    # the search from the end is in the key, with its own mark
    expect(calm.locator('#stage .gt-legend-item[data-kind="end"]')).to_contain_text(
        "the search from the end"
    )
    # the three engines agree, said with a mark and words
    expect(calm.locator('#stage .gt-cost[data-engine="networkx"]')).to_contain_text(
        "✓ same answer"
    )
    expect(calm.locator('#stage .gt-cost[data-engine="sql"]')).to_have_attribute(
        "data-agrees", "true"
    )
    assert calm.console_errors == []


def test_a_question_by_keyboard_and_a_nodes_menu(calm, live_server_url, lab_driver):
    open_lab(calm, live_server_url)
    keys = lab_driver(calm)
    keys.tab_to('#stage [data-spot="course-avoid_ord"]')
    before = seq(calm)
    calm.keyboard.press("Enter")
    next_frame(calm, before)
    expect(calm.locator('#stage [data-spot="course-avoid_ord"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(calm.locator("#side .gt-paths li")).to_have_count(4)
    # the path through ORD was dropped where it reached ORD: a ✕ on the drawing
    expect(calm.locator('#stage .gt-sign[data-kind="avoided"]').first).to_have_text("✕")
    # the graph is one Tab stop; the arrows move between its nodes; Enter opens a menu
    keys.tab_to('#stage .gt-node[tabindex="0"]')
    calm.keyboard.press("Home")
    expect(node(calm, "ATL")).to_be_focused()
    calm.keyboard.press("ArrowRight")
    expect(node(calm, "DEN")).to_be_focused()
    expect(node(calm, "DEN")).to_have_attribute(
        "aria-label", re.compile(r"^DEN: 2 routes out, 3 in")
    )
    calm.keyboard.press("Enter")
    menu = calm.locator("#stage .gt-menu")
    expect(menu).to_be_visible()
    expect(menu.get_by_role("button").first).to_be_focused()
    calm.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(node(calm, "DEN")).to_be_focused()
    calm.keyboard.press("Enter")
    before = seq(calm)
    menu.get_by_role("button", name="Everything within 3 edges of DEN").click()
    next_frame(calm, before)
    expect(calm.locator("#side .gt-ends")).to_contain_text("1 edge away: JFK, ORD")
    assert calm.console_errors == []


def test_a_bad_pattern_is_refused_at_its_column(calm, live_server_url):
    open_lab(calm, live_server_url)
    form = calm.locator(
        '#quick-controls form[data-action="run"], #controls form[data-action="run"]'
    ).first
    form.locator("input").fill("MATCH (a:Airport {code: 'LAX'})-[:ROUTE]->(b")
    form.locator('button[type="submit"]').click()
    error = form.locator(".form-error")
    expect(error).to_contain_text("column 45")
    expect(form.locator("input")).to_have_attribute("aria-invalid", "true")
    # nothing was asked: the strip still waits for a question
    expect(calm.locator("#stage .gt-costs-empty")).to_be_visible()
    assert calm.console_errors == []


def grow(page):
    """Switch "Grow the graph 10×" on (its switch may show the default first)."""
    switch = page.get_by_role("switch", name="Grow the graph 10×")
    lab = page.locator("#stage .gt-lab")
    for _ in range(2):
        before = seq(page)
        switch.click()
        next_frame(page, before)
        if lab.get_attribute("data-grown") == "true":
            return
    raise AssertionError("the graph did not grow")


def test_growing_the_graph_keeps_the_edges_read_and_costs_the_join_more(
    calm, live_server_url
):
    open_lab(calm, live_server_url)
    ask(calm, "one_stop")
    read = calm.locator('#stage .gt-cost[data-engine="traversal"] .gt-cost-big')
    expect(read).to_have_text(re.compile(r"^\d+ edges read$"))
    edges = int(read.inner_text().split()[0])
    grow(calm)
    expect(calm.locator("#stage .gt-node")).to_have_count(80)
    # the same edges read, before and now, beside each other
    expect(read).to_have_text(f"{edges} → {edges} edges read")
    sql = calm.locator('#stage .gt-cost[data-engine="sql"]')
    expect(sql).to_contain_text("table: 13 → 130 rows")
    said = sql.locator(".gt-cost-line", has_text="comparisons").inner_text()
    before, now = map(int, re.search(r"(\d+) → (\d+) comparisons", said).groups())
    assert now > before, said
    # the same answer, drawn on the old part of the graph
    expect(calm.locator("#side .gt-paths li").first).to_contain_text("LAX → DEN → JFK")
    expect(node(calm, "DEN")).to_have_class(re.compile(r"\bon-path\b"))
    assert calm.console_errors == []


def test_the_sql_is_shown_and_never_editable(calm, live_server_url):
    open_lab(calm, live_server_url)
    ask(calm, "within_three")
    code = calm.locator("#side .gt-sql code").first
    expect(code).to_contain_text("WITH RECURSIVE")
    assert code.evaluate("c => !c.isContentEditable && c.closest('textarea') === null")
    expect(calm.locator('#side .gt-side-part[data-part="sql"]')).to_contain_text(
        "index lookups"
    )
    expect(
        calm.locator('#side .gt-side-part[data-part="networkx"] code')
    ).to_contain_text("nx.")
    bars = calm.locator("#side .gt-rounds-chart")
    expect(bars).to_have_attribute(
        "aria-label", re.compile(r"^Rows produced per round")
    )
    assert calm.console_errors == []


def test_the_expansion_plays_depth_by_depth(page, live_server_url):
    open_lab(page, live_server_url)
    page.locator('#stage [data-spot="course-within_three"]').click()
    lab = page.locator("#stage .gt-lab")
    expect(lab).to_have_attribute("data-playing", "true")
    expect(page.locator("#stage .gt-readout")).to_have_text(
        re.compile(r"^depth 1 · frontier 1 · 4 edges read$")
    )
    # the frontier of the first depth, LAX, is ringed
    expect(page.locator('#stage .gt-ring[data-node="LAX"]')).to_have_count(1)
    expect(page.locator("#stage .gt-readout")).to_have_text(
        re.compile(r"^depth 2 · frontier 4 ·")
    )
    expect(lab).to_have_attribute("data-playing", "false", timeout=8000)
    expect(page.locator("#stage .gt-readout")).to_contain_text("7 nodes reached")
    expect(page.locator("#stage .gt-ring")).to_have_count(0)
    # replayed from the stage
    page.get_by_role("button", name="Replay the expansion").click()
    expect(lab).to_have_attribute("data-playing", "true")
    expect(lab).to_have_attribute("data-playing", "false", timeout=8000)
    assert page.console_errors == []


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_questions_graph_and_costs_are_in_the_first_screen(
    kept_contexts, live_server_url, size
):
    width, height = size
    page = kept_contexts[0].new_page(
        {"width": width, "height": height}, reduced_motion="reduce"
    )
    open_lab(page, live_server_url)
    ask(page, "one_stop")
    # the answer's expansion played and drawn to its end: the boxes read below are of
    # one layout (read while it played, the graph's box was of one frame and a node's
    # of a later one, which had moved: a node 'outside' the graph, once in a run)
    expect(page.locator("#stage .gt-lab")).to_have_attribute(
        "data-playing", "false", timeout=8000
    )
    wait_until_still(page)
    boxes = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll(
             "#stage .gt-questions, #stage .gt-graph, #stage [data-spot='costs'], "
             + "#stage .gt-node .gt-node-dot")].map((element) => {
               const box = element.getBoundingClientRect();
               const name = element.closest(".gt-node")?.dataset.node
                 ?? element.dataset.spot ?? element.getAttribute("class");
               return [name, {x: box.x, y: box.y, width: box.width,
                              height: box.height}];
             }))"""
    )
    for selector in ("gt-questions", "gt-graph", "costs"):
        box = boxes.get(selector)
        assert box and box["height"] >= 30, (selector, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box)
    # every node of the graph is inside the drawing
    graph = boxes["gt-graph"]
    for name in ("LAX", "JFK", "SEA", "ATL"):
        box = boxes[name]
        assert (
            graph["x"] <= box["x"]
            and box["x"] + box["width"] <= graph["x"] + graph["width"]
        )
        assert (
            graph["y"] <= box["y"]
            and box["y"] + box["height"] <= graph["y"] + graph["height"]
        )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.console_errors == []
    page.close()


@pytest.mark.parametrize("lang", ["zh-hans", "th"])
def test_the_courses_questions_in_chinese_and_thai(calm, live_server_url, lang):
    """The same three questions, two by mouse and one by keyboard, with the page in
    Chinese and in Thai: the answers (codes and minutes) as in English, every
    label of the buttons in the page's language."""
    calm.add_init_script(SKIP_TOUR)
    calm.goto(f"{live_server_url}/labs/graph-traversal/?seed=1&lang={lang}")
    expect(calm.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(calm.locator("html")).to_have_attribute("lang", re.compile(lang[:2]))
    expect(calm.locator("#stage .gt-node")).to_have_count(8)
    first = calm.locator("#stage .gt-question").first
    assert "direct" not in first.inner_text()  # translated, not English
    ask(calm, "one_stop")
    expect(calm.locator("#side .gt-paths li").first).to_contain_text("LAX → DEN → JFK")
    expect(calm.locator("#side .gt-paths li").first).to_contain_text("380")
    ask(calm, "within_three")
    for name in ("SEA", "ORD", "ATL"):
        badge = calm.locator(f'#stage .gt-sign[data-kind="depth"][data-node="{name}"]')
        expect(badge).to_have_text("2")
    before = seq(calm)
    calm.locator('#stage [data-spot="course-fewest_to_sea"]').focus()
    calm.keyboard.press("Enter")
    next_frame(calm, before)
    expect(calm.locator("#side .gt-paths li").first).to_contain_text("LAX → SFO → SEA")
    assert calm.console_errors == []


# A graph of 1,200 nodes (past 1,000 the charge acts every other tick, so a handover
# must keep the beat): a ring, each node also joined to the one 37 on, and 40 hubs. Laid
# out four ways: on the page's thread; in the worker; in the worker until its first
# state arrives, then on the page's thread; and on the page's thread from a state taken
# 7 and 8 ticks in (`adopt`, which takes the worker's states: an odd and an even beat).
LAYOUTS_JS = """
async (url) => {
  const m = await import(url);
  const n = 1200;
  const nodes = Array.from({length: n}, (_, index) => ({index, name: "N" + index}));
  const edges = [];
  for (let i = 0; i < n; i += 1) {
    edges.push({source: nodes[i], target: nodes[(i + 1) % n]});
    edges.push({source: nodes[i], target: nodes[(i + 37) % n]});
    edges.push({source: nodes[i % 40], target: nodes[i]});
  }
  const graph = {nodes, edges};
  const here = m.makeLayout(graph, 5, {worker: false});
  here.settle();
  const differ = (other) => here.nodes.filter(
    (a, i) => a.x !== other.nodes[i].x || a.y !== other.nodes[i].y).length;
  const settled = (layout, handover) => new Promise((resolve, reject) => {
    const limit = performance.now() + 20000;
    let handedAt = null;
    const poll = setInterval(() => {
      if (handover && layout.version > 0 && handedAt === null) {
        handedAt = layout.ticks;
        layout.dispose();  // the rest on the page's thread, from the last state
        layout.settle();
      }
      if (layout.settled()) { clearInterval(poll); resolve(handedAt); }
      else if (performance.now() > limit) {
        clearInterval(poll);
        reject(new Error("not settled"));
      }
    }, 1);
  });
  const there = m.makeLayout(graph, 5);
  const inWorker = there.inWorker();
  await settled(there, false);
  const handed = m.makeLayout(graph, 5);
  const handedAt = await settled(handed, true);
  const adopted = [7, 8].map((k) => {
    const part = m.makeLayout(graph, 5, {worker: false});
    for (let i = 0; i < k; i += 1) part.sim.tick();
    const state = new Float64Array(n * 4);
    part.nodes.forEach((d, i) => state.set([d.x, d.y, d.vx, d.vy], 4 * i));
    const rest = m.makeLayout(graph, 5, {worker: false});
    rest.adopt({ticks: k, alpha: part.sim.alpha(), state});
    rest.settle();
    return differ(rest);
  });
  return {
    inWorker, ticks: there.ticks, handedAt, adopted,
    moved: differ(there), movedHanded: differ(handed),
    spread: Math.max(...here.nodes.map((a) => Math.abs(a.x))),
  };
}
"""


def test_a_large_layout_settles_in_a_worker_as_the_page_would(calm, live_server_url):
    """The worker's settling gives the page's own positions, number for number, and so
    does a settling the page takes over partway (a drag does that), at either beat of
    the charge."""
    open_lab(calm, live_server_url)
    result = calm.evaluate(LAYOUTS_JS, "/static/js/labs/graph-traversal/layout.js")
    assert result["inWorker"] is True
    assert result["ticks"] == 300
    assert result["spread"] > 100  # laid out, not left in a heap
    assert result["moved"] == 0
    assert 0 < result["handedAt"] < 300
    assert result["movedHanded"] == 0
    assert result["adopted"] == [0, 0]
    assert calm.console_errors == []


def test_the_grown_network_settles_in_a_worker_while_the_page_draws(
    calm, live_server_url
):
    """The 4,000 airports: the worker runs the layout and the canvas shows its
    positions as they come; the page says when it has settled."""
    open_lab(calm, live_server_url)
    form = calm.locator('form[data-action="set_graph"]')
    before = seq(calm)
    form.locator("select").select_option(index=1)
    form.evaluate("f => f.requestSubmit()")
    next_frame(calm, before)
    grow(calm)
    graph = calm.locator("#stage .gt-graph")
    expect(graph).to_have_attribute("data-size", "large")
    expect(graph).to_have_attribute("data-settling", "true")
    # a node dragged while the worker settles: the page takes the rest over
    box = graph.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    calm.mouse.move(x, y)
    calm.mouse.down()
    calm.mouse.move(x + 30, y + 20, steps=3)
    calm.mouse.move(x + 60, y + 40, steps=3)
    expect(graph).to_have_class(re.compile(r"\bis-dragging\b"))
    calm.mouse.up()
    expect(graph).to_have_attribute("data-settled", "true", timeout=30000)
    expect(graph).to_have_attribute("data-settling", "false")
    assert calm.console_errors == []
