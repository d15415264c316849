"""Keep the message catalogues current: `python -m web.catalogs` (from the repository root).

Extracts every marked string (babel.cfg: `_()` in templates, `TC.t`/`TC.tn` in the page's
scripts, `N_`/`gettext` in Python, the engine's
`Event.said(kind, template, ...)` and `phrase(template, ...)`) into web/translations/messages.pot, merges it into the
German and English `.po` files and compiles them to the `.mo` files that ship in the package.
After it, fill the new empty `msgstr ""` in web/translations/de/LC_MESSAGES/messages.po and run
it again; tests/test_web_i18n.py fails while a German entry is empty or a `.mo` is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.frontend import CommandLineInterface

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "web" / "translations"
KEYWORDS = ("N_", "said:2", "phrase:1", "worded:1", "asking:1", "TC.t", "TC.tn:1,2", "t")


def extract_args(output: Path) -> list[str]:
    args = ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), "--no-location", "--sort-output",
            "--omit-header", "-o", str(output)]
    for keyword in KEYWORDS:
        args += ["-k", keyword]
    return args + [str(ROOT)]


def main() -> int:
    pot = TRANSLATIONS / "messages.pot"
    TRANSLATIONS.mkdir(exist_ok=True)
    cli = CommandLineInterface()
    cli.run(extract_args(pot))
    for language in ("de", "en"):
        po = TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"
        if po.exists():
            cli.run(["pybabel", "-q", "update", "-i", str(pot), "-d", str(TRANSLATIONS), "-l", language,
                     "--no-fuzzy-matching", "--ignore-obsolete"])
        else:
            cli.run(["pybabel", "-q", "init", "-i", str(pot), "-d", str(TRANSLATIONS), "-l", language])
    cli.run(["pybabel", "-q", "compile", "-d", str(TRANSLATIONS), "--statistics"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
