"""Translation of what the simulators mark (labels, help, choice labels, tour steps)."""

from django.utils.translation import gettext

TRANSLATED_FIELDS = ("label", "help")
TOUR_FIELDS = ("say", "notice")


def translate_declaration(declaration: dict) -> dict:
    """A copy of a lab's declaration with its user-facing text translated."""

    def param(p: dict) -> dict:
        out = _translated(p)
        if "choices" in p:
            out["choices"] = [_translated(c) for c in p["choices"]]
        return out

    return {
        **declaration,
        "options": [param(p) for p in declaration["options"]],
        "actions": [
            {**_translated(a), "params": [param(p) for p in a["params"]]}
            for a in declaration["actions"]
        ],
        "tour": [
            _translated(step, TOUR_FIELDS) for step in declaration.get("tour", [])
        ],
        "words": {word: gettext(word) for word in declaration.get("words", [])},
    }


def _translated(item: dict, fields: tuple = TRANSLATED_FIELDS) -> dict:
    out = dict(item)
    for field in fields:
        if isinstance(out.get(field), str) and out[field]:
            out[field] = gettext(out[field])
    return out
