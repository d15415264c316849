"""German and English: which language a phone gets, and the catalogue its page's scripts use.

Flask-Babel does the work (message catalogues in web/translations, compiled `.mo`
shipped next to the `.po`). The language is, in this order: `?lang=de|en` (kept in a
cookie, so the next page load keeps it), the `lang` cookie, the phone's
`Accept-Language`, English. Templates use `_()`; the page's scripts get the same
catalogue as JSON (`catalog()`) and look strings up with `TC.t()` (web/static/i18n.js).

Marking strings (extracted by `pybabel extract -F babel.cfg`, see docs/web.md):
  templates  {{ _("Whose turn") }}, {{ _("%(name)s's turn", name=n) }}
  scripts    TC.t("Whose turn"), TC.t("{name}'s turn", {name: n}),
             TC.tn("one drop", "{n} drops", n, {n: n})
  Python     gettext / lazy_gettext from flask_babel inside a request;
             N_("...") from here for words translated later (on the page).
"""

from __future__ import annotations

from typing import Any

from babel.support import Translations
from flask import Flask, g, request
from flask_babel import Babel, get_locale

LANGUAGES = ("en", "de")  # the first is the fallback
COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 3600


def N_(message: str) -> str:
    """Mark a string for extraction only; it is translated where it is shown."""
    return message


# The dice faces as the engine names them in its sentences ("Tom rolled bee, honey, zzz"): the
# page translates each (TC.t) when it fills in an event's {faces}; the camera may see `unknown`.
FACE_WORDS = (N_("bee"), N_("honey"), N_("zzz"), N_("zombee"), N_("question"), N_("unknown"))


def select_locale() -> str:
    asked = request.args.get("lang", "").strip().lower()
    if asked in LANGUAGES:
        g.lang_chosen = asked
        return asked
    kept = request.cookies.get(COOKIE, "")
    if kept in LANGUAGES:
        return kept
    return request.accept_languages.best_match(LANGUAGES) or LANGUAGES[0]


def _keep_choice(response):
    response.vary.update(("Accept-Language", "Cookie"))  # a cache must not hand German to an English phone
    chosen = g.get("lang_chosen")
    if chosen:
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True)
    return response


def install(app: Flask) -> None:
    Babel(app, locale_selector=select_locale, default_domain="messages",
          default_translation_directories="translations")
    app.after_request(_keep_choice)
    app.extensions["companion_catalogs"] = {}

    @app.context_processor
    def _language() -> dict[str, Any]:
        return {"lang": current_language(), "languages": LANGUAGES, "catalog": catalog}


def current_language() -> str:
    locale = get_locale()
    return locale.language if locale is not None and locale.language in LANGUAGES else LANGUAGES[0]


def catalog(language: str | None = None) -> dict[str, Any]:
    """msgid -> translation (a list of forms for plurals) of one language, for the page's scripts.

    Only translated entries; English needs none (the msgid is the English text).
    """
    from flask import current_app

    language = language or current_language()
    if language == LANGUAGES[0]:
        return {}  # the keys are the English text
    cache = current_app.extensions["companion_catalogs"]
    if language not in cache:
        cache[language] = _load(current_app, language)
    return cache[language]


def _load(app: Flask, language: str) -> dict[str, Any]:
    from pathlib import Path

    directory = Path(app.root_path) / "translations"
    translations = Translations.load(str(directory), [language], domain="messages")
    entries: dict[str, Any] = {}
    for key, text in getattr(translations, "_catalog", {}).items():
        if not key or not text:  # the header entry, an untranslated one
            continue
        if isinstance(key, tuple):  # (msgid, plural form index)
            forms = entries.setdefault(key[0], [])
            if isinstance(forms, list):
                forms.extend([None] * (key[1] + 1 - len(forms)))
                forms[key[1]] = text
        else:
            entries[key] = text
    return entries
