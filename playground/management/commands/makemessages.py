"""`makemessages` that also knows the ES modules' helpers `t()` and `tn()`.

static/js/i18n.js wraps Django's JavaScript catalogue as `t(text)` and
`tn(singular, plural, n)`; xgettext has to be told those names (Django's documented
way: a command of the same name that extends `xgettext_options`).
"""

from django.core.management.commands import makemessages

JS_KEYWORDS = ["--keyword=t", "--keyword=tn:1,2"]


class Command(makemessages.Command):
    def handle(self, *args, **options):
        if options.get("domain") == "djangojs":
            self.xgettext_options = makemessages.Command.xgettext_options + JS_KEYWORDS
        return super().handle(*args, **options)
