"""Compile the translation catalogues (`locale/*/LC_MESSAGES/*.po`) with Babel.

`python -m playground.catalogues` compiles each catalogue whose `.mo` is missing or
older than its `.po`; `make install` runs it, so `make run` and `make test` serve the
committed translations on a fresh machine without GNU gettext (Django's own
`compilemessages` needs its `msgfmt`). Fuzzy entries are left out, as msgfmt leaves
them: a fuzzy translation shows the English until someone checks it.
"""

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parent.parent / "locale"


def sources(root: Path = LOCALE) -> list[Path]:
    """Every catalogue under `root`, in a stable order."""
    return sorted(root.glob("*/LC_MESSAGES/*.po"))


def compile_one(po: Path) -> Path:
    """Write `po`'s `.mo` beside it, atomically (a reader sees the old or the new)."""
    with po.open("rb") as source:
        catalogue = read_po(source, locale=po.parent.parent.name, domain=po.stem)
    mo = po.with_suffix(".mo")
    partial = mo.with_suffix(".mo.partial")
    with partial.open("wb") as target:
        write_mo(target, catalogue, use_fuzzy=False)
    partial.replace(mo)
    return mo


def compile_stale(root: Path = LOCALE) -> list[Path]:
    """Compile the catalogues whose `.mo` is missing or older than the `.po`."""
    written = []
    for po in sources(root):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            written.append(compile_one(po))
    return written


def main() -> int:
    written = compile_stale()
    for mo in written:
        print(f"compiled {mo.relative_to(LOCALE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
