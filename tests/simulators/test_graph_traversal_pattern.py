"""The graph-traversal lab's pattern parser: the course's queries, bad input, fuzz."""

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError
from simulators.labs.graph_traversal import pattern as pattern_module
from simulators.labs.graph_traversal.pattern import parse
from simulators.labs.graph_traversal.query import MAX_HOPS, Avoid, EdgeCondition

LAX_JFK = "MATCH (lax:Airport {code: 'LAX'})-[r:ROUTE]->(jfk:Airport {code: 'JFK'})"
VIA = (
    "MATCH (lax:Airport {code: 'LAX'})-[:ROUTE]->(via:Airport)-[:ROUTE]->"
    "(jfk:Airport {code: 'JFK'}) RETURN via.code"
)
TWO_STOPS = (
    "MATCH p = (lax:Airport {code: 'LAX'})-[:ROUTE]->()-[:ROUTE]->"
    "(jfk:Airport {code: 'JFK'})"
)
WITHIN_THREE = (
    "MATCH (lax:Airport {code: 'LAX'})-[:ROUTE*1..3]->(x:Airport) "
    "RETURN DISTINCT x.code"
)
REACHABLE = "MATCH (lax:Airport {code: 'LAX'})-[:ROUTE*]->(x) RETURN count(DISTINCT x)"
SHORTEST = (
    "MATCH p = shortestPath((:Airport {code: 'LAX'})-[:ROUTE*]->"
    "(:Airport {code: 'SEA'})) RETURN [n IN nodes(p) | n.code], length(p)"
)
WITHOUT_ORD = (
    "MATCH p = (:Airport {code: 'LAX'})-[:ROUTE*1..3]->(:Airport {code: 'JFK'}) "
    "WHERE NONE(n IN nodes(p) WHERE n.code = 'ORD') RETURN [n IN nodes(p) | n.code]"
)
DEPENDENTS = (
    "MATCH (:Service {name: 'auth'})<-[:DEPENDS_ON*1..]-(d:Service) "
    "RETURN DISTINCT d.name"
)
SHORT_LEGS = (
    "MATCH p = (:Airport {code: 'LAX'})-[r:ROUTE*1..3]->(:Airport {code: 'JFK'}) "
    "WHERE r.minutes < 200"
)
BOTH = (
    "MATCH p = (a {code:'LAX'})-[:ROUTE*..3]->(b {code:'JFK'}) "
    "WHERE ALL(r IN relationships(p) WHERE r.minutes < 200) "
    "AND NONE(n IN nodes(p) WHERE n.code = 'ORD')"
)
COURSE = (
    LAX_JFK,
    VIA,
    TWO_STOPS,
    WITHIN_THREE,
    REACHABLE,
    SHORTEST,
    WITHOUT_ORD,
    DEPENDENTS,
    SHORT_LEGS,
    BOTH,
)
START = "(a {code: 'LAX'})"  # a start for the bad inputs that are about something else


def column_of(text: str, fragment: str) -> int:
    """The 1-based column of the first `fragment` in `text`."""
    assert fragment in text, fragment
    return text.index(fragment) + 1


def ends(query) -> list[str | None]:
    """The named values of the pattern's nodes (None for an open node)."""
    return [node.value for node in query.nodes]


def ranges(query) -> list[tuple[int, int | None]]:
    return [(hop.min_hops, hop.max_hops) for hop in query.hops]


# -- the course's queries -------------------------------------------------------------


def test_one_route():
    query = parse(LAX_JFK)
    assert query.text == LAX_JFK
    assert ends(query) == ["LAX", "JFK"] and ranges(query) == [(1, 1)]
    assert [n.var for n in query.nodes] == ["lax", "jfk"]
    assert {n.label for n in query.nodes} == {"Airport"}
    assert {n.prop for n in query.nodes} == {"code"}
    hop = query.hops[0]
    assert (hop.var, hop.rel_type) == ("r", "ROUTE")
    assert not (query.shortest or query.reverse) and query.path_var is None
    assert query.returns is None and query.avoid == () and query.conditions == ()
    assert [n.column for n in query.nodes] == [7, column_of(LAX_JFK, "(jfk")]
    assert hop.column == column_of(LAX_JFK, "-[")


def test_one_stop_between():
    query = parse(VIA)
    assert ends(query) == ["LAX", None, "JFK"] and ranges(query) == [(1, 1), (1, 1)]
    assert query.nodes[1].var == "via" and query.returns == "via.code"


def test_a_named_path_through_an_open_node():
    query = parse(TWO_STOPS)
    assert query.path_var == "p" and ends(query) == ["LAX", None, "JFK"]
    assert query.nodes[1].var is None and query.nodes[1].label is None
    assert query.nodes[1].column == column_of(TWO_STOPS, "()")


def test_within_three_edges():
    query = parse(WITHIN_THREE)
    assert ends(query) == ["LAX", None] and ranges(query) == [(1, 3)]
    assert query.returns == "DISTINCT x.code" and query.distinct_ends


def test_everything_reachable():
    query = parse(REACHABLE)
    assert ranges(query) == [(1, None)] and query.max_total is None
    assert query.returns == "count(DISTINCT x)"


def test_shortest_path():
    query = parse(SHORTEST)
    assert query.shortest and query.path_var == "p"
    assert ends(query) == ["LAX", "SEA"] and ranges(query) == [(1, None)]
    assert query.returns == "[n IN nodes(p) | n.code], length(p)"
    assert query.start.column == column_of(SHORTEST, "(:Airport")


def test_avoiding_a_node():
    query = parse(WITHOUT_ORD)
    assert ends(query) == ["LAX", "JFK"] and ranges(query) == [(1, 3)]
    assert query.avoid == (Avoid("code", "ORD", column_of(WITHOUT_ORD, "NONE")),)
    assert query.returns == "[n IN nodes(p) | n.code]"


def test_dependents_follow_edges_backwards():
    query = parse(DEPENDENTS)
    assert query.reverse and ranges(query) == [(1, None)]
    assert query.start.prop == "name" and query.start.value == "auth"
    assert query.hops[0].rel_type == "DEPENDS_ON"
    assert query.hops[0].column == column_of(DEPENDENTS, "<-")


def test_the_shorthand_condition():
    query = parse(SHORT_LEGS)
    column = column_of(SHORT_LEGS, "r.minutes")
    assert query.conditions == (EdgeCondition("minutes", "<", 200, column),)


def test_all_and_none_together():
    query = parse(BOTH)
    assert ends(query) == ["LAX", "JFK"] and ranges(query) == [(1, 3)]
    assert query.conditions == (
        EdgeCondition("minutes", "<", 200, column_of(BOTH, "ALL")),
    )
    assert query.avoid == (Avoid("code", "ORD", column_of(BOTH, "NONE")),)


@pytest.mark.parametrize(
    ("written", "low", "high"),
    [
        ("", 1, 1),
        ("*", 1, None),
        ("*2", 2, 2),
        ("*..3", 1, 3),
        ("*2..", 2, None),
        ("*1..3", 1, 3),
        ("*..", 1, None),
        (f"*{MAX_HOPS}", MAX_HOPS, MAX_HOPS),
        (" * 2 .. 4 ", 2, 4),
    ],
)
def test_ranges(written, low, high):
    assert ranges(parse(f"{START}-[:ROUTE{written}]->(b)")) == [(low, high)]


@pytest.mark.parametrize("operator", ["<", "<=", ">", ">=", "=", "<>"])
def test_every_comparison(operator):
    query = parse(f"{START}-[r*]->(b) WHERE r.minutes {operator} 90")
    assert query.conditions[0].op == operator and query.conditions[0].value == 90


def test_short_arrows_keywords_in_any_case_and_newlines():
    query = parse(
        'match p =\n  (a {code: "LAX"})\n  --> (b)\n  --> (c {code: "JFK"})\n'
        "where none(n in NODES(p) where n.code = 'ORD') return p"
    )
    assert ranges(query) == [(1, 1), (1, 1)] and ends(query) == ["LAX", None, "JFK"]
    assert query.avoid[0].value == "ORD" and query.returns == "p"
    assert parse(f"{START}<--(b)<--(c)").reverse
    assert parse(f"MATCH {START}").hops == ()  # one node, no edge: allowed


# -- bad input ------------------------------------------------------------------------

# each text carries a "^" just before the character its error's column points at (at
# the very end: the column after the last character); the "^" is taken out to parse
REFUSED = [
    # unbalanced parentheses, brackets, a missing or wrong arrow
    ("MATCH (a {code: 'LAX'}^-[:R]->(b)", "bad_pattern"),
    (f"MATCH {START}-[:R]->(b)^)", "bad_pattern"),
    (f"MATCH {START}-[:R]->(b^", "bad_pattern"),
    (f"MATCH p = shortestPath({START}-[:R*]->(b {{code: 'X'}})^", "bad_pattern"),
    (f"MATCH {START}-[:R]^(b)", "bad_pattern"),
    (f"MATCH {START}^(b)", "bad_pattern"),
    (f"MATCH {START}-[:R]^-(b)", "bad_pattern"),
    (f"MATCH {START}-[:R*1..3^->(b)", "bad_pattern"),
    (f"MATCH {START}-[:R]->^", "bad_pattern"),
    (f"MATCH {START}-^(b)", "bad_pattern"),
    ("MATCH (a:^)", "bad_pattern"),
    # ranges
    (f"MATCH {START}-[:R*^0..3]->(b)", "depth_zero"),
    (f"MATCH {START}-[:R*..^0]->(b)", "depth_zero"),
    (f"MATCH {START}-[:R*1..^12]->(b)", "too_deep"),
    (f"MATCH {START}-[:R*^9]->(b)", "too_deep"),
    (f"MATCH {START}-[:R*^999999]->(b)", "too_deep"),
    (f"MATCH {START}-[:R^*3..2]->(b)", "bad_pattern"),
    (f"MATCH {START}-[:R*^1.5]->(b)", "bad_pattern"),
    (f"MATCH {START}-[:R*^1234567]->(b)", "bad_pattern"),
    # one way
    (f"MATCH {START}-[:R]->(b)^<-[:R]-(c)", "bad_pattern"),
    (f"MATCH {START}<-[:R]-(b)^-->(c)", "bad_pattern"),
    # property maps
    (f"MATCH {START}-[:R]->(b ^{{code: 'X'}})-[:R]->(c)", "bad_pattern"),
    ("MATCH ^(a)-[:R]->(b {code: 'JFK'})", "bad_pattern"),
    ("MATCH ^(a:Airport)", "bad_pattern"),
    ("MATCH (a {code: ^1})", "bad_pattern"),
    ("MATCH (a {code: 'LAX'^, x: 'y'})", "bad_pattern"),
    # shortestPath
    (
        f"MATCH p = shortestPath({START}-[:R]->(b)^-[:R]->(c {{code: 'X'}}))",
        "bad_pattern",
    ),
    (f"MATCH p = shortestPath({START}-[:R*]->^(b))", "bad_pattern"),
    (f"MATCH p = shortestPath({START}^)", "bad_pattern"),
    (f"MATCH p = shortestPath({START}-[:R*]->(b {{code: 'X'}}))^-->(c)", "bad_pattern"),
    # conditions
    (
        f"MATCH p = {START}-[*]->(b) WHERE NONE(n IN nodes(^q) WHERE n.code = 'X')",
        "bad_pattern",
    ),
    (
        f"MATCH {START}-[*]->(b) WHERE NONE(n IN nodes(^p) WHERE n.code = 'X')",
        "bad_pattern",
    ),
    (
        f"MATCH p = {START}-[*]->(b) WHERE NONE(n IN nodes(p) WHERE ^m.code = 'X')",
        "bad_pattern",
    ),
    (
        f"MATCH p = {START}-[*]->(b) WHERE ALL(^b IN relationships(p) WHERE b.x < 3)",
        "bad_pattern",
    ),
    (
        f"MATCH p = {START}-[*]->(b) WHERE NONE(n IN nodes(p) WHERE n.code ^<> 'X')",
        "bad_pattern",
    ),
    (
        f"MATCH p = {START}-[*]->(b) WHERE NONE(n IN ^relationships(p) WHERE n.x = 1)",
        "bad_pattern",
    ),
    (f"MATCH {START}-[r*]->(b) WHERE r.minutes ^!= 200", "bad_pattern"),
    (f"MATCH {START}-[r*]->(b) WHERE r.minutes ^=> 200", "bad_pattern"),
    (f"MATCH {START}-[r*]->(b) WHERE r.minutes < ^'200'", "bad_pattern"),
    (f"MATCH {START}-[r*]->(b) WHERE r.minutes^", "bad_pattern"),
    (f"MATCH {START}-[r*]->(b) WHERE ^x.minutes < 200", "bad_pattern"),
    (f"MATCH {START}-[r]->(b)-[]->(c) WHERE ^r.minutes < 200", "bad_pattern"),
    (f"MATCH {START}-[r*]->(b) WHERE^", "bad_pattern"),
    (f"MATCH {START}-[r*]->(b) WHERE r.minutes < 9 ^OR r.minutes > 1", "bad_pattern"),
    # names
    (f"MATCH {START}-[r]->(^r)", "bad_pattern"),
    ("MATCH p = (^p {code: 'LAX'})", "bad_pattern"),
    # empty, stray and unknown things
    ("^", "empty_pattern"),
    ("^ \n\t ", "empty_pattern"),
    ("MATCH^", "bad_pattern"),
    ("MATCH ^RETURN 1", "bad_pattern"),
    (f"MATCH {START} ^LIMIT 3", "bad_pattern"),
    (f"MATCH {START}-[:R]->(b) ^b", "bad_pattern"),
    ("MATCH (a {code: ^'LAX})-[:R]->(b)", "bad_pattern"),
    ("MATCH (a {code: ^\"LAX'})", "bad_pattern"),
    (f"MATCH {START}-[:R]->(b) ^% 2", "bad_pattern"),
    ("MATCH (a {code: ^‘LAX’})", "bad_pattern"),
]


@pytest.mark.parametrize(("marked", "code"), REFUSED)
def test_refused(marked, code):
    """Each bad input: an ActionError with its code, field and column."""
    text = marked.replace("^", "", 1)
    with pytest.raises(ActionError) as caught:
        parse(text)
    error = caught.value
    assert (error.code, error.field) == (code, "pattern"), error.message
    assert error.params["column"] == marked.index("^") + 1, error.message
    assert error.translated(lambda template: template) == error.message


def test_columns_count_over_newlines():
    text = "MATCH\n  (a {code: 'LAX'})\n  -[:ROUTE*0..2]->(b)"
    with pytest.raises(ActionError) as caught:
        parse(text)
    assert caught.value.code == "depth_zero"
    assert caught.value.params["column"] == text.index("0..") + 1 == 38


def test_explicit_columns():
    """A few columns counted by hand, so the helper above is checked too."""
    for text, column in [
        ("(a {code: 'LAX'}-[:R]->(b)", 17),
        ("(a {code: 'LAX'})-[:R*1..12]->(b)", 26),
        ("(a {code: 'LAX'})-[:R]->(b)<-[:R]-(c)", 28),
        ("(a {code: 'LAX'})-[:R](b)", 23),
        ("(a {code: 'LAX'})", None),
    ]:
        if column is None:
            parse(text)
            continue
        with pytest.raises(ActionError) as caught:
            parse(text)
        assert caught.value.params["column"] == column, caught.value.message


def test_too_deep_names_the_maximum():
    with pytest.raises(ActionError) as caught:
        parse(f"{START}-[*1..12]->(b)")
    assert caught.value.params["maximum"] == MAX_HOPS
    assert str(MAX_HOPS) in caught.value.message


def marked_templates() -> list[str]:
    """Every string the parser marks with `_()`, read from its source."""
    tree = ast.parse(Path(pattern_module.__file__).read_text())
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "_"
    ]


def test_templates_are_whole_sentences_with_a_column():
    """One template per situation, each naming its column (but the empty one's)."""
    templates = marked_templates()
    assert len(templates) == len(set(templates)) and 20 <= len(templates) <= 40
    for template in templates:
        assert template == pattern_module.EMPTY or template.startswith(
            "column %(column)s: "
        )
    pairs = [v for v in vars(pattern_module).values() if isinstance(v, tuple)]
    pairs = [p for p in pairs if p and all(t in templates for t in p)]
    assert len(pairs) >= 8
    for found, at_end in pairs:  # twins: "found “x”" and "found the end"
        assert found.replace("“%(found)s”", "the end") == at_end


# -- fuzz -----------------------------------------------------------------------------

# the grammar's words and marks, some misused; the fuzz strings them together
WORDS = """MATCH match WHERE where AND RETURN NONE ALL IN nodes relationships
    shortestPath p r n a b :Airport :ROUTE code minutes 'LAX' "JFK" ' " ( ) [ ] { } :
    , . .. * - -> <- --> <-- < <= > >= = <> ! | 0 1 3 9 12 200 1234567"""
PIECES = (*WORDS.split(), " ", " ", "\n")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|'[^']*'|\"[^\"]*\"|\.\.|<-|->|<>|<=|>=|\S")
FUZZ = settings(max_examples=300, deadline=None)


def check(text: str) -> None:
    """Parsing `text` gives a sound Query or an ActionError, nothing else."""
    try:
        query = parse(text)
    except ActionError as error:
        assert error.field == "pattern" and error.message
        assert error.code in ("bad_pattern", "empty_pattern", "depth_zero", "too_deep")
        assert 1 <= error.params["column"] <= len(text) + 1
        return
    assert query.text == text
    assert len(query.nodes) == len(query.hops) + 1
    assert query.start.prop is not None and query.start.value is not None
    for hop in query.hops:
        assert 1 <= hop.min_hops <= MAX_HOPS
        assert hop.max_hops is None or hop.min_hops <= hop.max_hops <= MAX_HOPS
    for item in (*query.nodes, *query.hops, *query.avoid, *query.conditions):
        assert 1 <= item.column <= len(text)
    if query.shortest:
        assert len(query.hops) == 1 and query.end.prop is not None


@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_fuzz_text_of_the_grammars_pieces(text):
    check(text)


@FUZZ
@given(st.text(alphabet="()[]{}:.*-<>=!'\" aLXpr1209", max_size=60))
def test_fuzz_characters(text):
    check(text)


@st.composite
def mutated(draw):
    """A course query with a character or a token deleted, inserted or replaced."""
    text = draw(st.sampled_from(COURSE))
    how = draw(st.sampled_from(["delete", "insert", "replace"]))
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text) - 1))
        new = draw(st.sampled_from("()[]{}:.*-<>='\" xr19"))
        cut = at + (how != "insert")
        return text[:at] + ("" if how == "delete" else new) + text[cut:]
    tokens = TOKEN.findall(text)
    at = draw(st.integers(0, len(tokens) - 1))
    new = draw(st.sampled_from(PIECES))
    cut = at + (how != "insert")
    return " ".join(tokens[:at] + ([] if how == "delete" else [new]) + tokens[cut:])


@FUZZ
@given(mutated())
def test_fuzz_mutated_course_queries(text):
    check(text)


def test_the_tokens_of_the_course_queries_rejoin_to_the_same_query():
    """The fuzz's token split is faithful: rejoined with spaces, each still parses."""
    for text in COURSE:
        again = parse(" ".join(TOKEN.findall(text)))
        assert ends(again) == ends(parse(text)) and ranges(again) == ranges(parse(text))
