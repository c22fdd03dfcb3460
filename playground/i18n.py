"""Translation of what the simulators mark (labels, help, choice labels)."""

from django.utils.translation import gettext

TRANSLATED_FIELDS = ("label", "help")


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
    }


def _translated(item: dict) -> dict:
    out = dict(item)
    for field in TRANSLATED_FIELDS:
        if isinstance(out.get(field), str) and out[field]:
            out[field] = gettext(out[field])
    return out
