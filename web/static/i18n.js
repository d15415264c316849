/* The page's words in the phone's language: TC.t and TC.tn over the catalogue the server put
   into the page (<script id="i18n" type="application/json">, from web/translations via Flask-Babel).
   The key is the English text itself, as with gettext, so an untranslated string shows in English.
   Placeholders are {name} (see word() for lists and phrases). */
"use strict";
window.TC = window.TC || {};

(function (TC) {
  let catalog = {};
  try {
    const node = document.getElementById("i18n");
    catalog = (node && JSON.parse(node.textContent)) || {};
  } catch (err) {
    catalog = {};
  }
  TC.lang = document.documentElement.lang || "en";

  /* A value: a phrase ({template, args}: the engine's words, companion/events.py) is translated on
     its own; a list of phrases is joined with "; ", a list of words (names, dice faces) with ", ". A
     roll's faces read as its dice are labelled (TC.LABELS: "ZomBee", not the command's "zombee"). */
  function word(value) {
    if (Array.isArray(value)) {
      const phrases = value.length && value[0] && typeof value[0] === "object";
      const faces = (TC.info && TC.info.faces) || [];
      const roll = TC.LABELS && value.length && value.every((item) => faces.includes(item));
      const one = (item) => (roll ? TC.LABELS[item] : TC.t(String(item)));
      return value.map((item) => (typeof item === "object" ? word(item) : one(item))).join(phrases ? "; " : ", ");
    }
    if (value && typeof value === "object" && typeof value.template === "string") return TC.t(value.template, value.args);
    return String(value);
  }

  /* The sentence of an engine event (or a notice) in the page's language: its template translated
     and filled in again; its English text when it has no template. */
  TC.eventText = (event) => (event && event.template ? TC.t(event.template, event.args) : (event && event.text) || "");

  function fill(text, params) {
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name) => {
      if (!(name in params)) return whole;
      return word(params[name]);
    });
  }

  /* TC.t("Roll the dice") or TC.t("{name} rolled", {name: "Tom"}). */
  TC.t = function (text, params) {
    const found = catalog[text];
    return fill(typeof found === "string" ? found : text, params);
  };

  /* A number written as the page's language writes it: TC.number(0.5, 2) is "0.50" in English and
     "0,50" in German; the second argument is the digits after the point or Intl.NumberFormat's options. */
  TC.number = function (x, digits) {
    const options = typeof digits === "number"
      ? { minimumFractionDigits: digits, maximumFractionDigits: digits } : digits;
    return new Intl.NumberFormat(TC.lang, options).format(x);
  };

  /* A share written as the page's language writes it: TC.percent(0.07) is "7%" in English and "7 %" in German
     (digits: after the point, at most; none by default). */
  TC.percent = function (share, digits) {
    return new Intl.NumberFormat(TC.lang, { style: "percent", maximumFractionDigits: digits || 0 }).format(share);
  };

  /* A time of day, hours and minutes, as the page's language writes it ("04:42"; English "04:42 AM"). */
  TC.clockTime = function (secs) {
    return new Date(secs * 1000).toLocaleTimeString(TC.lang, { hour: "2-digit", minute: "2-digit" });
  };

  /* TC.tn("one flower", "{n} flowers", n, {n}): German and English both have one form for 1
     and one for every other number. */
  TC.tn = function (singular, plural, n, params) {
    const forms = catalog[singular];
    const index = n === 1 ? 0 : 1;
    const text = Array.isArray(forms) && forms[index] ? forms[index] : (index === 0 ? singular : plural);
    return fill(text, Object.assign({ n: n }, params || {}));
  };
})(window.TC);
