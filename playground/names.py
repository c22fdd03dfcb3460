"""Display names in a class: unique within it, and the host's kept for the host.

Two names are the same when they fold alike: Unicode NFKC (full-width letters are
letters), case folded, runs of spaces as one. Nobody but a host may use a host's name,
nor one made of the words for host or teacher in the playground's three languages
("Teacher", "the host", "Ms Teacher", "老师", "王老师", "ครู"...): students would take it
for the teacher's word.
"""

import re
import unicodedata

MAX_NAME_LENGTH = 40  # as playground.protocol's

# the words that say "the one who runs the class", folded; Latin ones match a whole word
# of a name, the others anywhere in it (Chinese and Thai write no spaces between words)
RESERVED_WORDS = ("host", "teacher", "teachers", "instructor", "moderator", "admin")
RESERVED_TEXT = (
    "主持人",
    "老师",
    "老師",
    "教师",
    "教師",
    "主讲",
    "ครู",
    "ผู้สอน",
    "อาจารย์",
    "โฮสต์",
    "ผู้ดำเนินรายการ",
)
_WORD = re.compile(r"[^\W_]+")


def fold(name: str) -> str:
    """The form two names are compared in."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(text.split())


def is_reserved(name: str) -> bool:
    """Whether `name` is made of the words for the host or the teacher."""
    folded = fold(name)
    if any(word in folded for word in RESERVED_TEXT):
        return True
    words = _WORD.findall(folded)
    return any(word in RESERVED_WORDS for word in words) or (
        "".join(words) in RESERVED_WORDS
    )


def unique(name: str, taken: set[str]) -> str:
    """`name`, or `name 2`, `name 3`... whichever no one in `taken` (folded) has."""
    if fold(name) not in taken:
        return name
    for n in range(2, 10_000):
        suffix = f" {n}"
        candidate = name[: MAX_NAME_LENGTH - len(suffix)].rstrip() + suffix
        if fold(candidate) not in taken:
            return candidate
    raise RuntimeError("no free name")  # 10,000 members with one name: never
