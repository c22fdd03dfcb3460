"""The Chinese and Thai catalogues: complete, checked, and in step with the source.

An entry that is missing (a string marked in a template, in Python or in an ES module
that the catalogue does not hold), empty, fuzzy, or whose translation drops, adds or
renames a placeholder or an HTML tag fails here, in either language and either domain.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from playground.catalogues import LOCALE, compile_one

ROOT = LOCALE.parent
LANGUAGES = ("zh_Hans", "th")
DOMAINS = ("django", "djangojs")
CATALOGUES = [(lang, domain) for lang in LANGUAGES for domain in DOMAINS]
PLACEHOLDER = re.compile(r"%\([A-Za-z_]+\)[sdrf]|%[sdrf]|\{[A-Za-z_]+\}")
TAG = re.compile(r"</?[a-zA-Z][^>]*>|&[a-z]+;")
# what the copy for extraction needs: everything that marks strings, and settings
SOURCES = ("manage.py", "playground", "simulators", "templates", "static/js", "locale")


def catalogue(lang: str, domain: str):
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    with path.open("rb") as source:
        return read_po(source, locale=lang, domain=domain)


def entries(lang: str, domain: str):
    return [message for message in catalogue(lang, domain) if message.id]


def forms(message) -> list[str]:
    return list(message.string) if message.pluralizable else [message.string]


def ids(message) -> list[str]:
    return list(message.id) if message.pluralizable else [message.id]


def shape(text: str) -> tuple[list[str], list[str]]:
    """The placeholders and tags of a text, in a canonical order."""
    return sorted(PLACEHOLDER.findall(text)), sorted(TAG.findall(text))


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_every_entry_is_translated_and_none_is_fuzzy(lang, domain):
    messages = entries(lang, domain)
    assert len(messages) > 100, "the catalogue is nearly empty"
    empty = [m.id for m in messages if not all(f.strip() for f in forms(m))]
    fuzzy = [m.id for m in messages if m.fuzzy]
    assert not empty, f"{len(empty)} untranslated in {lang}/{domain}: {empty[:5]}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy in {lang}/{domain}: {fuzzy[:5]}"


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_translations_keep_the_placeholders_and_tags(lang, domain):
    wrong = []
    for message in entries(lang, domain):
        english = shape(ids(message)[-1])
        for text in forms(message):
            if text and shape(text) != english:
                wrong.append((ids(message)[0], text))
    assert not wrong, f"{len(wrong)} in {lang}/{domain}, e.g. {wrong[:3]}"


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_plural_entries_have_the_one_form_of_the_language(lang, domain):
    plural = [m for m in entries(lang, domain) if m.pluralizable]
    assert plural, "no plural entry: ngettext and tn() are used"
    for message in plural:
        assert len(message.string) == 1, (message.id, message.string)


def test_the_checker_sees_a_dropped_placeholder():
    english = "%(n)s keys moved to %(shard)s"
    assert shape("%(n)s 个键移到了分片") != shape(english)
    assert shape("%(n)s 个键移到了分片 %(shard)s") == shape(english)
    assert shape("<a href='%(url)s'>链接</a>") != shape("<a href='%(url)s'>link")


def test_the_catalogues_compile(tmp_path):
    for lang, domain in CATALOGUES:
        copy = tmp_path / lang / "LC_MESSAGES" / f"{domain}.po"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(LOCALE / lang / "LC_MESSAGES" / f"{domain}.po", copy)
        assert compile_one(copy).stat().st_size > 1000


def extracted(tmp_path: Path) -> Path:
    """A copy of the sources with `make messages` run on it: its locale folder."""
    for name in SOURCES:
        source = ROOT / name
        target = tmp_path / name
        if source.is_dir():
            shutil.copytree(
                source, target, ignore=shutil.ignore_patterns("__pycache__", "*.mo")
            )
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
    environment = {**os.environ, "PLAYGROUND_VAR_DIR": str(tmp_path / "var")}
    for domain, extra in (
        ("django", []),
        ("djangojs", ["--ignore", "static/vendor/*"]),
    ):
        subprocess.run(
            [sys.executable, "manage.py", "makemessages", "-d", domain]
            + ["-l", "zh_Hans", "-l", "th", "--ignore", "var/*", *extra],
            cwd=tmp_path,
            env=environment,
            check=True,
            capture_output=True,
        )
    return tmp_path / "locale"


@pytest.fixture(scope="module")
def fresh_locale(tmp_path_factory):
    if shutil.which("xgettext") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("GNU gettext's xgettext is missing (make browser installs it)")
        pytest.skip(
            "GNU gettext's xgettext is not installed (make browser installs it)"
        )
    return extracted(tmp_path_factory.mktemp("extract"))


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_every_marked_string_has_an_entry(fresh_locale, lang, domain):
    path = fresh_locale / lang / "LC_MESSAGES" / f"{domain}.po"
    with path.open("rb") as source:
        fresh = read_po(source, locale=lang, domain=domain)
    have = {m.id if isinstance(m.id, str) else m.id[0] for m in entries(lang, domain)}
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in fresh if m.id}
    missing = sorted(wanted - have)
    assert not missing, (
        f"{len(missing)} marked strings have no {lang}/{domain} entry (run "
        f"`make messages` and translate them): {missing[:8]}"
    )
