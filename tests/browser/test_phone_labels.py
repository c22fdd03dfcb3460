"""At phone width (390 px) no quick action's label is cut short (issue 12).

The quick actions sit under the stage in one compact row each. Their labels were cut to
an ellipsis to keep every field on one line ("If the other c…"; in an embed, "Se…"):
now the fields take two lines where they need them, and every label is seen in full,
in each language.
"""

import pytest

from playground.liveserver import watch_errors

pytestmark = pytest.mark.browser

# Labels whose text is wider than their box (cut by overflow), with their text.
CUT_JS = """
() => [...document.querySelectorAll(".lab-rail .action-form.is-quick .field label")]
  .filter((label) => label.offsetParent !== null)
  .filter((label) => label.scrollWidth > label.clientWidth + 1)
  .map((label) => label.textContent.trim())
"""


@pytest.mark.parametrize("lang", ["en", "zh-hans", "th"])
@pytest.mark.parametrize(
    "path",
    [
        "/labs/hash-placement/?seed=1",
        "/labs/quorum/?seed=1",
        "/labs/partition-cap/?seed=1",
        "/embed/partition-cap/?seed=1",
    ],
)
def test_no_quick_label_is_cut_at_phone_width(browser, live_server_url, path, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = watch_errors(context.new_page())
    try:
        page.goto(f"{live_server_url}{path}&lang={lang}")
        page.wait_for_selector(".lab-rail .action-form.is-quick .field label")
        assert page.evaluate(CUT_JS) == []
        assert page.console_errors == []
    finally:
        context.close()
