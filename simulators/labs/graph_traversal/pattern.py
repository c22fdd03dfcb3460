"""The pattern box's parser: the Cypher subset of `query.py`, read into a `Query`.

`parse(text)` returns the `Query` or raises `ActionError` (field "pattern") for anything
outside the subset. A hand-written tokenizer (`_Lexer`) hands tokens one at a time to a
recursive-descent parser (`_Parser`), so the first mistake in the text is the one
reported.

The grammar (keywords in any case; names `[A-Za-z_][A-Za-z0-9_]*`; strings in single or
double quotes, without escapes; whole numbers of at most six digits):

    query     := [MATCH] [name =] (shortestPath ( pattern ) | pattern) [where] [return]
    pattern   := node (relationship node)*
    node      := ( [name] [: name] [{ name : string }] )
    relationship := -[ [name] [: name] [range] ]->  |  <-[ … ]-  |  -->  |  <--
    range     := * [number] [.. [number]]
    where     := WHERE condition (AND condition)*
    condition := NONE(n IN nodes(p) WHERE n.prop = string)
               | ALL(r IN relationships(p) WHERE r.prop cmp number)
               | r.prop cmp number            (r: the pattern's only relationship)
    return    := RETURN anything            (kept as written, not interpreted)

Every error names a column: the 1-based offset of the offending character in the whole
text, newlines counted as one character each (the pattern box is one line). The end of
the text is the column after its last character. Each message is one whole sentence
for the translators: "found “x”" and "found the end" are two templates.
"""

from dataclasses import dataclass
from typing import Any

from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.graph_traversal.query import (
    COMPARISONS,
    MAX_HOPS,
    Avoid,
    EdgeCondition,
    Hop,
    NodePattern,
    Query,
)

FIELD = "pattern"
MAX_DIGITS = 6  # a bound, a minute count: no huge numbers to compute with
SHOWN = 20  # the most characters of an offending token quoted in a message

# -- messages -------------------------------------------------------------------------
# A pair is (found a token, found the end): the parser picks one by what it met.

NODE_START = (
    _("column %(column)s: expected “(” to start a node, found “%(found)s”"),
    _("column %(column)s: expected “(” to start a node, found the end"),
)
NODE_END = (
    _("column %(column)s: expected “)” to close the node, found “%(found)s”"),
    _("column %(column)s: expected “)” to close the node, found the end"),
)
NAME_AFTER_COLON = (
    _("column %(column)s: expected a name after “:”, found “%(found)s”"),
    _("column %(column)s: expected a name after “:”, found the end"),
)
PROPERTIES = (
    _(
        "column %(column)s: expected a property map such as {code: 'LAX'}, "
        "found “%(found)s”"
    ),
    _(
        "column %(column)s: expected a property map such as {code: 'LAX'}, "
        "found the end"
    ),
)
RELATIONSHIP = (
    _(
        "column %(column)s: expected a relationship such as -[:ROUTE]-> "
        "or <-[:ROUTE]-, found “%(found)s”"
    ),
    _(
        "column %(column)s: expected a relationship such as -[:ROUTE]-> "
        "or <-[:ROUTE]-, found the end"
    ),
)
BRACKET_END = (
    _("column %(column)s: expected “]” to close the relationship, found “%(found)s”"),
    _("column %(column)s: expected “]” to close the relationship, found the end"),
)
SHORTEST_END = (
    _(
        "column %(column)s: expected a relationship or “)” to close shortestPath(…), "
        "found “%(found)s”"
    ),
    _(
        "column %(column)s: expected a relationship or “)” to close shortestPath(…), "
        "found the end"
    ),
)
CONDITION = (
    _(
        "column %(column)s: expected a condition such as "
        "NONE(n IN nodes(p) WHERE n.code = 'ORD'), "
        "ALL(r IN relationships(p) WHERE r.minutes < 200) or r.minutes < 200, "
        "found “%(found)s”"
    ),
    _(
        "column %(column)s: expected a condition such as "
        "NONE(n IN nodes(p) WHERE n.code = 'ORD'), "
        "ALL(r IN relationships(p) WHERE r.minutes < 200) or r.minutes < 200, "
        "found the end"
    ),
)
COMPARISON = (
    _(
        "column %(column)s: expected <, <=, >, >=, = or <> and a whole number, "
        "found “%(found)s”"
    ),
    _(
        "column %(column)s: expected <, <=, >, >=, = or <> and a whole number, "
        "found the end"
    ),
)
# after a whole part the end is welcome: these have no "found the end" twin
AFTER_NODE = _(
    "column %(column)s: expected a relationship, WHERE, RETURN or the end, "
    "found “%(found)s”"
)
AFTER_SHORTEST = _(
    "column %(column)s: expected WHERE, RETURN or the end, found “%(found)s”"
)
AFTER_CONDITION = _(
    "column %(column)s: expected AND, RETURN or the end, found “%(found)s”"
)
# the tokenizer's
CHARACTER = _("column %(column)s: the character “%(found)s” has no place in a pattern")
OPEN_STRING = _(
    "column %(column)s: this string is never closed; end it with the quote "
    "it starts with"
)
NUMBER = _(
    "column %(column)s: expected a whole number of at most %(digits)s digits, "
    "found “%(found)s”"
)
# the meaning's
EMPTY = _("the pattern is empty: write one such as (a {code: 'LAX'})-[:ROUTE]->(b)")
ONE_WAY = _(
    "column %(column)s: a pattern goes one way: make every relationship -[…]-> "
    "or every one <-[…]-"
)
DEPTH_ZERO = _(
    "column %(column)s: a relationship covers at least one edge: start its range at 1"
)
TOO_DEEP = _("column %(column)s: a relationship covers at most %(maximum)s edges")
RANGE_ORDER = _("column %(column)s: the range's lower bound is above its upper bound")
START = _(
    "column %(column)s: the first node must name where the path starts, "
    "with a property map such as {code: 'LAX'}"
)
MIDDLE = _(
    "column %(column)s: only the first and the last node may carry a property map"
)
SHORTEST = _(
    "column %(column)s: shortestPath(…) takes one relationship between two named "
    "nodes, as in shortestPath((a {code: 'LAX'})-[:ROUTE*]->(b {code: 'SEA'}))"
)
NO_PATH = _(
    "column %(column)s: no path is named “%(name)s”: name it first, as in MATCH p = (…)"
)
INNER = _(
    "column %(column)s: expected “%(expected)s”, the variable this condition "
    "declares, found “%(found)s”"
)
SHORTHAND = _(
    "column %(column)s: “%(name)s” is not the variable of the pattern's only "
    "relationship; write ALL(r IN relationships(p) WHERE r.minutes < 200)"
)
REUSED = _(
    "column %(column)s: the variable “%(name)s” is used twice; give each thing "
    "its own name"
)

# -- tokens ---------------------------------------------------------------------------

NAME, STRING, NUMBER_KIND, OPERATOR, SYMBOL, RETURN, END = (
    "name",
    "string",
    "number",
    "operator",
    "symbol",
    "return",
    "end",
)
DIGITS = "0123456789"
QUOTES = "'\""
OPERATOR_CHARACTERS = "<>=!"  # a run of these is one operator token: "<>", "!="
SINGLES = "()[]{}:,*|"


@dataclass(frozen=True)
class Token:
    """One token: `text` as written (a string with its quotes), `column` 1-based.

    `value` is a string's contents, a number's value, or the RETURN clause's text.
    """

    kind: str
    text: str
    column: int
    value: Any = None


def _error(code: str, template: str, column: int, **params) -> ActionError:
    """An error about the pattern at `column`."""
    return ActionError(code, template, FIELD, column=column, **params)


def _shown(text: str) -> str:
    """A token's text as quoted in a message, cut short when long."""
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _starts_name(ch: str) -> bool:
    return ch == "_" or (ch.isascii() and ch.isalpha())


def _in_name(ch: str) -> bool:
    return _starts_name(ch) or ch in DIGITS


class _Lexer:
    """Cuts the text into tokens, one per `next()`; END forever after the last."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0  # 0-based index of the next character

    def next(self) -> Token:
        text = self.text
        while self.at < len(text) and text[self.at].isspace():
            self.at += 1
        if self.at >= len(text):
            return Token(END, "", len(text) + 1)
        ch = text[self.at]
        if _starts_name(ch):
            return self._name()
        if ch in DIGITS:
            return self._number()
        if ch in QUOTES:
            return self._string()
        return self._symbol()

    def _cut(self, kind: str, length: int, value=None) -> Token:
        """The token of the next `length` characters."""
        start = self.at
        self.at += length
        return Token(kind, self.text[start : self.at], start + 1, value)

    def _run(self, start: int, allowed) -> int:
        """The index after the run of characters from `start` that pass `allowed`."""
        end = start
        while end < len(self.text) and allowed(self.text[end]):
            end += 1
        return end

    def _name(self) -> Token:
        """A name or keyword; RETURN takes the rest of the text as its value."""
        end = self._run(self.at, _in_name)
        token = self._cut(NAME, end - self.at)
        if token.text.lower() != "return":
            return token
        rest = self.text[self.at :].strip()
        self.at = len(self.text)
        return Token(RETURN, token.text, token.column, rest)

    def _number(self) -> Token:
        """A whole number of at most MAX_DIGITS digits (`1.5` is refused whole)."""
        text, start = self.text, self.at
        end = self._run(start, lambda ch: ch in DIGITS)
        fraction = end + 1 < len(text) and text[end] == "." and text[end + 1] in DIGITS
        if fraction or end - start > MAX_DIGITS:
            if fraction:
                end = self._run(end + 1, lambda ch: ch in DIGITS)
            found, digits = _shown(text[start:end]), MAX_DIGITS
            raise _error("bad_pattern", NUMBER, start + 1, found=found, digits=digits)
        return self._cut(NUMBER_KIND, end - start, int(text[start:end]))

    def _string(self) -> Token:
        """A quoted string, closed by the quote it opens with."""
        close = self.text.find(self.text[self.at], self.at + 1)
        if close < 0:
            raise _error("bad_pattern", OPEN_STRING, self.at + 1)
        contents = self.text[self.at + 1 : close]
        return self._cut(STRING, close + 1 - self.at, contents)

    def _symbol(self) -> Token:
        """Arrows, comparisons, `..` and single punctuation."""
        text, at = self.text, self.at
        for arrow in ("<--", "<-", "-->", "->"):
            if text.startswith(arrow, at):
                return self._cut(SYMBOL, len(arrow))
        ch = text[at]
        if ch in OPERATOR_CHARACTERS:
            end = self._run(at, lambda c: c in OPERATOR_CHARACTERS)
            return self._cut(OPERATOR, end - at)
        if text.startswith("..", at):
            return self._cut(SYMBOL, 2)
        if ch in SINGLES or ch in "-.":
            return self._cut(SYMBOL, 1)
        raise _error("bad_pattern", CHARACTER, at + 1, found=ch)


# -- the parser -----------------------------------------------------------------------

RELATIONSHIP_STARTS = ("-", "<-", "-->", "<--")
PATH, NODE, EDGE = "path", "node", "relationship"  # what a variable names


@dataclass
class _Pattern:
    """What the pattern part says, with the columns of its property maps."""

    nodes: list[NodePattern]
    hops: list[Hop]
    reverse: bool
    maps: list[int | None]  # per node, the column of its "{" (None: no map)


class _Parser:
    """Recursive descent over the lexer's tokens, with a short look-ahead."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lexer = _Lexer(text)
        self.ahead: list[Token] = []  # tokens read but not taken
        self.variables: dict[str, str] = {}  # name -> PATH, NODE or EDGE
        self.path_var: str | None = None

    # -- tokens ---------------------------------------------------------------------

    def peek(self, offset: int = 0) -> Token:
        """The token `offset` places ahead, not taken."""
        while len(self.ahead) <= offset:
            self.ahead.append(self.lexer.next())
        return self.ahead[offset]

    def take(self) -> Token:
        """The next token, taken."""
        token = self.peek()
        self.ahead.pop(0)
        return token

    @staticmethod
    def is_word(token: Token, word: str) -> bool:
        """Whether `token` is the keyword `word`, in any case."""
        return token.kind == NAME and token.text.lower() == word.lower()

    @staticmethod
    def is_symbol(token: Token, symbol: str) -> bool:
        return token.kind == SYMBOL and token.text == symbol

    @staticmethod
    def is_operator(token: Token, operator: str) -> bool:
        return token.kind == OPERATOR and token.text == operator

    def fail(self, messages: tuple[str, str], token: Token, **params) -> ActionError:
        """The error for meeting `token` where something else was expected."""
        if token.kind == END:
            return _error("bad_pattern", messages[1], token.column, **params)
        found = _shown(token.text)
        return _error("bad_pattern", messages[0], token.column, found=found, **params)

    def expect_symbol(self, symbol: str, messages: tuple[str, str]) -> Token:
        if not self.is_symbol(self.peek(), symbol):
            raise self.fail(messages, self.peek())
        return self.take()

    def expect_word(self, word: str, messages: tuple[str, str]) -> Token:
        if not self.is_word(self.peek(), word):
            raise self.fail(messages, self.peek())
        return self.take()

    def expect(self, kind: str, messages: tuple[str, str]) -> Token:
        """The next token, which must be of `kind` (NAME, STRING, NUMBER_KIND)."""
        if self.peek().kind != kind:
            raise self.fail(messages, self.peek())
        return self.take()

    def declare(self, token: Token, kind: str) -> None:
        """Note that the variable `token` names a thing of `kind`; once only."""
        if token.text in self.variables:
            raise _error("bad_pattern", REUSED, token.column, name=token.text)
        self.variables[token.text] = kind

    # -- the query ------------------------------------------------------------------

    def query(self) -> Query:
        """The whole text: [MATCH] [p =] pattern or shortestPath(…), WHERE, RETURN."""
        if self.is_word(self.peek(), "match"):
            self.take()
        if self.peek().kind == NAME and self.is_operator(self.peek(1), "="):
            name = self.take()
            self.take()
            self.declare(name, PATH)
            self.path_var = name.text
        shortest = self.is_word(self.peek(), "shortestPath") and self.is_symbol(
            self.peek(1), "("
        )
        if shortest:
            self.take()
            self.take()
        pattern = self.pattern()
        if shortest:
            closing = self.expect_symbol(")", SHORTEST_END)
            self.check_shortest(pattern, closing)
        self.check_maps(pattern)
        stray = AFTER_SHORTEST if shortest else AFTER_NODE
        avoid, conditions = self.where(pattern, stray)
        returns = None
        if self.peek().kind == RETURN:
            returns = self.take().value
        assert self.peek().kind == END  # every caller above refused anything else
        return Query(
            text=self.text,
            path_var=self.path_var,
            shortest=shortest,
            reverse=pattern.reverse,
            nodes=tuple(pattern.nodes),
            hops=tuple(pattern.hops),
            avoid=tuple(avoid),
            conditions=tuple(conditions),
            returns=returns,
        )

    def pattern(self) -> _Pattern:
        """node (relationship node)*, every relationship pointing the same way."""
        node, brace = self.node()
        pattern = _Pattern([node], [], False, [brace])
        while self.peek().kind == SYMBOL and self.peek().text in RELATIONSHIP_STARTS:
            hop, reverse = self.relationship()
            if pattern.hops and reverse != pattern.reverse:
                raise _error("bad_pattern", ONE_WAY, hop.column)
            pattern.reverse = reverse
            pattern.hops.append(hop)
            node, brace = self.node()
            pattern.nodes.append(node)
            pattern.maps.append(brace)
        return pattern

    def node(self) -> tuple[NodePattern, int | None]:
        """`(var:Label {prop: 'value'})`, and the column of its "{" if it has one."""
        opening = self.expect_symbol("(", NODE_START)
        var = label = prop = value = brace = None
        if self.peek().kind == NAME:
            token = self.take()
            self.declare(token, NODE)
            var = token.text
        if self.is_symbol(self.peek(), ":"):
            self.take()
            label = self.expect(NAME, NAME_AFTER_COLON).text
        if self.is_symbol(self.peek(), "{"):
            brace = self.take().column
            prop = self.expect(NAME, PROPERTIES).text
            self.expect_symbol(":", PROPERTIES)
            value = self.expect(STRING, PROPERTIES).value
            self.expect_symbol("}", PROPERTIES)
        self.expect_symbol(")", NODE_END)
        node = NodePattern(var, label, prop, value, opening.column)
        return node, brace

    def relationship(self) -> tuple[Hop, bool]:
        """`-[r:TYPE*1..3]->` or `<-[…]-` (or `-->`, `<--`): the hop and its way."""
        start = self.take()
        reverse = start.text.startswith("<")
        if start.text in ("-->", "<--"):
            return Hop(None, None, 1, 1, start.column), reverse
        self.expect_symbol("[", RELATIONSHIP)
        var = rel_type = None
        if self.peek().kind == NAME:
            token = self.take()
            self.declare(token, EDGE)
            var = token.text
        if self.is_symbol(self.peek(), ":"):
            self.take()
            rel_type = self.expect(NAME, NAME_AFTER_COLON).text
        low, high = 1, 1
        if self.is_symbol(self.peek(), "*"):
            low, high = self.hop_range()
        self.expect_symbol("]", BRACKET_END)
        self.expect_symbol("-" if reverse else "->", RELATIONSHIP)
        return Hop(var, rel_type, low, high, start.column), reverse

    def hop_range(self) -> tuple[int, int | None]:
        """`*`, `*2`, `*..3`, `*2..`, `*1..3`: (min, max), max None for unbounded."""
        star = self.take()
        low = high = None
        if self.peek().kind == NUMBER_KIND:
            low = self.take()
        if self.is_symbol(self.peek(), ".."):
            self.take()
            if self.peek().kind == NUMBER_KIND:
                high = self.take()
        elif low is not None:
            high = low  # `*2`: exactly two
        bounds = [b for b in (low, high) if b is not None]
        for bound in bounds:
            if bound.value == 0:
                raise _error("depth_zero", DEPTH_ZERO, bound.column)
        for bound in bounds:
            if bound.value > MAX_HOPS:
                raise _error("too_deep", TOO_DEEP, bound.column, maximum=MAX_HOPS)
        least = 1 if low is None else low.value
        most = None if high is None else high.value
        if most is not None and least > most:
            raise _error("bad_pattern", RANGE_ORDER, star.column)
        return least, most

    # -- what the pattern must say --------------------------------------------------

    def check_maps(self, pattern: _Pattern) -> None:
        """The first node is named by a property map; no node between carries one."""
        if pattern.maps[0] is None:
            raise _error("bad_pattern", START, pattern.nodes[0].column)
        for brace in pattern.maps[1:-1]:
            if brace is not None:
                raise _error("bad_pattern", MIDDLE, brace)

    def check_shortest(self, pattern: _Pattern, closing: Token) -> None:
        """shortestPath(…): one relationship between two nodes named by maps."""
        if len(pattern.hops) != 1:
            column = pattern.hops[1].column if pattern.hops else closing.column
            raise _error("bad_pattern", SHORTEST, column)
        for node, brace in zip(pattern.nodes, pattern.maps, strict=True):
            if brace is None:
                raise _error("bad_pattern", SHORTEST, node.column)

    # -- conditions -----------------------------------------------------------------

    def where(
        self, pattern: _Pattern, stray: str
    ) -> tuple[list[Avoid], list[EdgeCondition]]:
        """[WHERE condition (AND condition)*], then RETURN or the end.

        `stray` is the message for anything else where WHERE could be: AFTER_NODE
        (a relationship could have come too) or AFTER_SHORTEST.
        """
        avoid: list[Avoid] = []
        conditions: list[EdgeCondition] = []
        if not self.is_word(self.peek(), "where"):
            token = self.peek()
            if token.kind not in (RETURN, END):
                found = _shown(token.text)
                raise _error("bad_pattern", stray, token.column, found=found)
            return avoid, conditions
        self.take()
        while True:
            condition = self.condition(pattern)
            if isinstance(condition, Avoid):
                avoid.append(condition)
            else:
                conditions.append(condition)
            if not self.is_word(self.peek(), "and"):
                break
            self.take()
        token = self.peek()
        if token.kind not in (RETURN, END):
            found = _shown(token.text)
            raise _error("bad_pattern", AFTER_CONDITION, token.column, found=found)
        return avoid, conditions

    def condition(self, pattern: _Pattern) -> Avoid | EdgeCondition:
        """NONE(…), ALL(…) or the shorthand `r.minutes < 200`."""
        token = self.peek()
        if self.is_symbol(self.peek(1), "("):
            if self.is_word(token, "none"):
                return self.none()
            if self.is_word(token, "all"):
                return self.all()
        if token.kind == NAME:
            return self.shorthand(pattern)
        raise self.fail(CONDITION, token)

    def none(self) -> Avoid:
        """`NONE(n IN nodes(p) WHERE n.code = 'ORD')`."""
        start = self.take()
        self.take()  # "("
        prop = self.over_path(NODE, "nodes")
        if not self.is_operator(self.peek(), "="):
            raise self.fail(CONDITION, self.peek())
        self.take()
        value = self.expect(STRING, CONDITION).value
        self.expect_symbol(")", CONDITION)
        return Avoid(prop, value, start.column)

    def all(self) -> EdgeCondition:
        """`ALL(r IN relationships(p) WHERE r.minutes < 200)`."""
        start = self.take()
        self.take()  # "("
        prop = self.over_path(EDGE, "relationships")
        operator, number = self.comparison()
        self.expect_symbol(")", CONDITION)
        return EdgeCondition(prop, operator, number, start.column)

    def over_path(self, kind: str, function: str) -> str:
        """`n IN nodes(p) WHERE n.prop`: checks the names, returns the property."""
        inner = self.expect(NAME, CONDITION)
        if self.variables.get(inner.text, kind) != kind:
            raise _error("bad_pattern", REUSED, inner.column, name=inner.text)
        self.expect_word("in", CONDITION)
        self.expect_word(function, CONDITION)
        self.expect_symbol("(", CONDITION)
        path = self.expect(NAME, CONDITION)
        if path.text != self.path_var:
            raise _error("bad_pattern", NO_PATH, path.column, name=path.text)
        self.expect_symbol(")", CONDITION)
        self.expect_word("where", CONDITION)
        used = self.expect(NAME, CONDITION)
        if used.text != inner.text:
            raise _error(
                "bad_pattern",
                INNER,
                used.column,
                expected=inner.text,
                found=_shown(used.text),
            )
        self.expect_symbol(".", CONDITION)
        return self.expect(NAME, CONDITION).text

    def shorthand(self, pattern: _Pattern) -> EdgeCondition:
        """`r.minutes < 200`, `r` being the variable of the only relationship."""
        var = self.take()
        self.expect_symbol(".", CONDITION)
        prop = self.expect(NAME, CONDITION).text
        hops = pattern.hops
        if len(hops) != 1 or hops[0].var != var.text:
            raise _error("bad_pattern", SHORTHAND, var.column, name=var.text)
        operator, number = self.comparison()
        return EdgeCondition(prop, operator, number, var.column)

    def comparison(self) -> tuple[str, int]:
        """`< 200`: one of COMPARISONS and a whole number."""
        operator = self.peek()
        if operator.kind != OPERATOR or operator.text not in COMPARISONS:
            raise self.fail(COMPARISON, operator)
        self.take()
        number = self.expect(NUMBER_KIND, COMPARISON)
        return operator.text, number.value


def parse(text: str) -> Query:
    """The `Query` that `text` says; ActionError (field "pattern") when it cannot.

    Codes: "empty_pattern" (nothing but whitespace), "depth_zero" (a range from 0),
    "too_deep" (a bound above MAX_HOPS) and "bad_pattern" for everything else. Every
    error's params carry `column`, 1-based into `text`.
    """
    if not text.strip():
        raise _error("empty_pattern", EMPTY, 1)
    return _Parser(text).query()
