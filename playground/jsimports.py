"""ES modules' static imports, and the module graph of a page, for modulepreload.

A module's graph is discovered by the browser one level at a time: each import is only
seen once its parent has arrived. Listing the whole graph as modulepreload links in
the page lets the browser ask for every module at once. The lists come from the
modules themselves (their `import … from "…"`, `export … from "…"` and `import "…"`),
read once per process, never written by hand.

`static_imports` reads a module with a small tokenizer that knows the JavaScript that
can hide the word `import`: comments, strings, template literals (and the code inside
`${…}`), regular expression literals. `import(…)` (dynamic) and `import.meta` are not
static imports and are left out; the page passes the module that lab-page.js imports
dynamically (the lab's renderer) as an entry of its own.

`ModuleGraph` resolves what the browser would: a relative specifier against the URL of
the module that imports it, a bare one through the import map, and keeps both the
static path (to read the file) and the URL (what the browser fetches, and so what the
preload must name: a preload under any other URL is a second download).
"""

import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

# The import map of every page that runs modules (bare name -> static path).
IMPORT_MAP = {"d3": "vendor/d3/d3.js"}


class ModuleGraphError(Exception):
    """A module imports something that cannot be found or resolved."""


# -- reading one module ---------------------------------------------------------------

IMPORT_WORDS = re.compile(r"\b(?:import|export)\b")
SPACE = re.compile(r"\s+")
NAME = re.compile(r"[\w$\\\u0080-\U0010ffff]+")
NUMBER = re.compile(r"\.?\d[\w.]*")
# After these words an expression starts, so a `/` opens a regular expression.
KEYWORDS_BEFORE_EXPRESSION = frozenset(
    {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw"}
    | {"case", "do", "else", "yield", "await"}
)


@dataclass(frozen=True)
class Token:
    """One token: its kind ("name", "string", "punct" or "value") and its text."""

    kind: str
    text: str


def tokens(source: str) -> Iterator[Token]:
    """The tokens of a module that matter to its imports; comments are skipped.

    Strings yield their value; template literals, numbers and regular expressions
    yield an opaque "value" token (the code inside a template's `${…}` is read too).
    """
    pos, end = 0, len(source)
    if source.startswith("#!"):
        pos = _line_end(source, 0)
    previous: Token | None = None
    templates: list[int] = []  # brace depth at each open `${`
    depth = 0
    while pos < end:
        char = source[pos]
        if char.isspace():
            pos = SPACE.match(source, pos).end()
            continue
        if source.startswith("//", pos):
            pos = _line_end(source, pos)
            continue
        if source.startswith("/*", pos):
            close = source.find("*/", pos + 2)
            pos = end if close < 0 else close + 2
            continue
        if char in "'\"":
            token, pos = _string(source, pos)
        elif char == "`" or (char == "}" and templates and templates[-1] == depth):
            if char == "}":
                templates.pop()
            pos, opened = _template(source, pos + 1)
            if opened:
                templates.append(depth)
            token = Token("value", "`")
        elif char == "/" and _regex_allowed(previous):
            token, pos = _regex(source, pos)
        elif number := NUMBER.match(source, pos):
            token, pos = Token("value", number.group()), number.end()
        elif name := NAME.match(source, pos):
            token, pos = Token("name", name.group()), name.end()
        else:
            depth += {"{": 1, "}": -1}.get(char, 0)
            token, pos = Token("punct", char), pos + 1
        previous = token
        yield token


def _line_end(source: str, pos: int) -> int:
    newline = source.find("\n", pos)
    return len(source) if newline < 0 else newline


def _string(source: str, pos: int) -> tuple[Token, int]:
    """A quoted string starting at `pos`: its value (escapes of the quote undone)."""
    quote, index, chars = source[pos], pos + 1, []
    while index < len(source):
        char = source[index]
        if char == "\\":
            chars.append(source[index + 1 : index + 2])
            index += 2
            continue
        if char == quote or char == "\n":
            return Token("string", "".join(chars)), index + 1
        chars.append(char)
        index += 1
    return Token("string", "".join(chars)), index


def _template(source: str, pos: int) -> tuple[int, bool]:
    """Skip template text from `pos`: (where it stopped, whether at a `${`)."""
    index = pos
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
        elif char == "`":
            return index + 1, False
        elif char == "$" and source.startswith("${", index):
            return index + 2, True
        else:
            index += 1
    return index, False


def _regex_allowed(previous: Token | None) -> bool:
    """Whether a `/` after `previous` opens a regular expression (not a division)."""
    if previous is None:
        return True
    if previous.kind == "punct":
        return previous.text not in ")]"
    if previous.kind == "name":
        return previous.text in KEYWORDS_BEFORE_EXPRESSION
    return False


def _regex(source: str, pos: int) -> tuple[Token, int]:
    """A regular expression literal at `pos`, or a lone `/` if the line ends first."""
    index, in_class = pos + 1, False
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if char == "\n":
            break
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            flags = NAME.match(source, index + 1)
            return Token("value", "/"), flags.end() if flags else index + 1
        index += 1
    return Token("punct", "/"), pos + 1


def static_imports(source: str) -> list[str]:
    """The specifiers a module imports or re-exports statically, in source order."""
    if not IMPORT_WORDS.search(source):
        return []  # most of d3's bundle: nothing to read
    found: list[str] = []
    items = list(tokens(source))
    for index, token in enumerate(items):
        if token.kind != "name" or token.text not in ("import", "export"):
            continue
        if index and items[index - 1] == Token("punct", "."):
            continue  # a property: `x.import`
        specifier = _specifier_after(items, index + 1, token.text == "import")
        if specifier is not None:
            found.append(specifier)
    return found


# What may stand between `import` (or `export`) and `from`.
CLAUSE = frozenset("{}*,")


def _specifier_after(items: list[Token], index: int, is_import: bool) -> str | None:
    """The module named by the import or export clause starting at `index`, if any."""
    if index >= len(items):
        return None
    first = items[index]
    if is_import and first.kind == "string":
        return first.text  # import "./side-effect.js"
    if not is_import and first.text not in "{*":
        return None  # export const …, export default …, export function …
    braces = 0
    while index < len(items):
        token = items[index]
        if token.kind == "punct":
            if token.text not in CLAUSE:
                return None  # import(…), import.meta, an object's `import:` key
            braces += {"{": 1, "}": -1}.get(token.text, 0)
        elif token.kind == "name" and token.text == "from" and braces == 0:
            following = items[index + 1] if index + 1 < len(items) else None
            if following is not None and following.kind == "string":
                return following.text
        elif token.kind == "value" or (token.kind == "string" and braces == 0):
            return None
        index += 1
    return None


# -- the graph ------------------------------------------------------------------------


@dataclass(frozen=True)
class Module:
    """A module as the browser sees it: the URL it fetches, and its static path."""

    path: str
    url: str


class ModuleGraph:
    """Every module a page's entry modules load, found by reading them.

    `read(path)` gives a static file's text (raising FileNotFoundError when there is
    none), `url_for(path)` its URL as `{% static %}` gives it, `import_map` the bare
    names (name -> static path). `imports_rewritten`: the static storage rewrites the
    specifiers inside modules to `url_for` of their targets (a manifest storage with
    `support_js_module_import_aggregation`); otherwise the browser resolves them
    against the importing module's URL.
    """

    def __init__(
        self,
        read: Callable[[str], str],
        url_for: Callable[[str], str],
        import_map: dict[str, str],
        imports_rewritten: bool = False,
    ) -> None:
        self.read = read
        self.url_for = url_for
        self.import_map = import_map
        self.imports_rewritten = imports_rewritten
        self._imports: dict[Module, list[Module]] = {}

    def entry(self, path: str) -> Module:
        """A module the page names itself (a `<script>`, or `import()` of its URL)."""
        return Module(path, self.url_for(path))

    def closure(self, entries: Iterable[str]) -> list[Module]:
        """The entries and everything they import, breadth first, each once."""
        queue = [self.entry(path) for path in entries]
        seen: dict[str, Module] = {}
        while queue:
            module = queue.pop(0)
            if module.url in seen:
                continue  # a cycle, or a module imported from two places
            seen[module.url] = module
            queue.extend(self.imports_of(module))
        return list(seen.values())

    def imports_of(self, module: Module) -> list[Module]:
        """The modules `module` imports (read once)."""
        if module not in self._imports:
            try:
                source = self.read(module.path)
            except FileNotFoundError:
                raise ModuleGraphError(
                    f"{module.path} (at {module.url}) is not a static file"
                ) from None
            self._imports[module] = [
                self.resolve(specifier, module) for specifier in static_imports(source)
            ]
        return self._imports[module]

    def resolve(self, specifier: str, importer: Module) -> Module:
        """The module `specifier` names when `importer` imports it."""
        if specifier in self.import_map:
            return self.entry(self.import_map[specifier])
        if not specifier.startswith(("./", "../", "/")):
            raise ModuleGraphError(
                f"{importer.path} imports {specifier!r}, which is neither a relative "
                "address nor a name of the import map"
            )
        path = self._path_of(specifier, importer)
        if self.imports_rewritten:
            return self.entry(path)
        return Module(path, urljoin(importer.url, specifier))

    def _path_of(self, specifier: str, importer: Module) -> str:
        target = urlsplit(specifier).path
        if target.startswith("/"):
            static_root = urlsplit(self.url_for("")).path
            if not target.startswith(static_root):
                raise ModuleGraphError(
                    f"{importer.path} imports {specifier!r}, outside the static files"
                )
            return posixpath.normpath(target[len(static_root) :])
        joined = posixpath.join(posixpath.dirname(importer.path), target)
        path = posixpath.normpath(joined)
        if path.startswith("../") or path == "..":
            raise ModuleGraphError(
                f"{importer.path} imports {specifier!r}, outside the static files"
            )
        return path
