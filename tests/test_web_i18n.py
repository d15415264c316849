"""German and English: the language a phone gets, and catalogues that are complete and compiled."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from web import create_app
from web.catalogs import TRANSLATIONS, extract_args

LANGUAGES = ("de", "en")


@pytest.fixture
def client(table):
    app = create_app({"TABLE": table, "PIN": "246813"})
    yield app.test_client()
    app.extensions["companion"].hub.close()


def page_catalog(html: str) -> dict:
    found = re.search(r'<script id="i18n" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page carries its scripts' catalogue"
    return json.loads(found.group(1))


def lang_of(html: str) -> str:
    return re.search(r'<html lang="(\w+)"', html).group(1)


# --- which language ---------------------------------------------------------------------------


def test_a_phone_asking_for_german_gets_german_from_the_first_load(client):
    html = client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"}).get_data(as_text=True)
    assert lang_of(html) == "de"
    assert "<h1>Spielbegleiter</h1>" in html
    assert page_catalog(html)["Table companion"] == "Spielbegleiter"


def test_english_without_a_choice_or_for_a_language_we_do_not_have(client):
    for headers in ({}, {"Accept-Language": "fr-FR,fr;q=0.9"}, {"Accept-Language": "en-GB"}):
        html = client.get("/", headers=headers).get_data(as_text=True)
        assert lang_of(html) == "en" and "<h1>Table companion</h1>" in html
        assert page_catalog(html) == {}  # English needs no catalogue: the keys are the English text


def test_lang_switches_and_is_kept_over_the_phones_language(client):
    german = {"Accept-Language": "de"}
    r = client.get("/?lang=en", headers=german)
    assert lang_of(r.get_data(as_text=True)) == "en"
    assert "lang=en" in r.headers["Set-Cookie"] and "HttpOnly" in r.headers["Set-Cookie"]
    # the next load, without ?lang, stays English although the phone asks for German
    assert lang_of(client.get("/", headers=german).get_data(as_text=True)) == "en"
    r = client.get("/?lang=de")
    assert lang_of(r.get_data(as_text=True)) == "de"
    assert lang_of(client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)) == "de"


def test_an_unknown_lang_changes_nothing(client):
    r = client.get("/?lang=xx", headers={"Accept-Language": "de"})
    assert lang_of(r.get_data(as_text=True)) == "de" and "Set-Cookie" not in r.headers


def test_the_page_names_what_its_language_depends_on(client):
    vary = client.get("/").headers["Vary"]
    assert "Accept-Language" in vary and "Cookie" in vary


def test_the_page_offers_both_languages(client):
    html = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'href="?lang=en"' in html and 'href="?lang=de"' in html
    assert re.search(r'href="\?lang=de"[^>]*aria-current="true"', html)


# --- the catalogues ---------------------------------------------------------------------------


def po(language):
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


def test_every_marked_string_is_in_the_catalogues(tmp_path):
    from babel.messages.frontend import CommandLineInterface

    pot = tmp_path / "messages.pot"
    CommandLineInterface().run(extract_args(pot))
    with open(pot, "rb") as f:
        marked = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    for language in LANGUAGES:
        known = {m.id if isinstance(m.id, str) else m.id[0] for m in po(language) if m.id}
        assert not sorted(marked - known), f"run `python -m web.catalogs` ({language} misses these)"


def test_no_german_entry_is_empty_or_fuzzy():
    empty = [m.id for m in po("de") if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                                   else [m.string]))]
    assert not empty, f"German translations missing in messages.po: {empty}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalogue_is_compiled_and_current(language):
    mo_path = TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo"
    with open(mo_path, "rb") as f:
        compiled = {(m.id if isinstance(m.id, str) else tuple(m.id)): (m.string if isinstance(m.string, str) else tuple(m.string))
                    for m in read_mo(f) if m.id}
    compiled = {k: v for k, v in compiled.items() if v != k}  # Babel writes an empty plural as its msgid
    written = {(m.id if isinstance(m.id, str) else tuple(m.id)): m.string for m in po(language) if m.id and m.string and not m.fuzzy
               and (not isinstance(m.string, tuple) or all(m.string))}
    written = {k: v for k, v in written.items() if v != k}
    assert compiled == written, "run `python -m web.catalogs` to compile the .po files"


def test_the_compiled_catalogues_ship_in_the_package():
    import tomllib

    data = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["web"]
    assert any(Path("translations/de/LC_MESSAGES/messages.mo").match(p) for p in patterns)
