/* The page's words in the phone's language: TC.t and TC.tn over the catalogue the server put
   into the page (<script id="i18n" type="application/json">, from web/translations via Flask-Babel).
   The key is the English text itself, as with gettext, so an untranslated string shows in English.
   Placeholders are {name}; a list value is shown as its items, each translated, joined by ", ". */
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

  function fill(text, params) {
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name) => {
      if (!(name in params)) return whole;
      const value = params[name];
      if (Array.isArray(value)) return value.map((item) => TC.t(String(item))).join(", ");
      return String(value);
    });
  }

  /* TC.t("Roll the dice") or TC.t("{name} rolled", {name: "Tom"}). */
  TC.t = function (text, params) {
    const found = catalog[text];
    return fill(typeof found === "string" ? found : text, params);
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
