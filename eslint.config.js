// ESLint's flat config for the browser modules (static/js) and this file. `make jscheck`
// runs it (from `make test` and `make lint`); docs/frontend.md, "Checking the JavaScript".
import js from "@eslint/js";
import globals from "globals";

// Django's JavaScriptCatalog (the page loads it before the modules) defines these on
// window. Only i18n.js may use them: every other module translates through t(), tn() and
// fmt(), which fall back to English when the catalogue did not load.
const DJANGO_CATALOGUE = Object.fromEntries(
  ["gettext", "ngettext", "gettext_noop", "pgettext", "npgettext", "interpolate", "get_format",
    "pluralidx", "django"].map((name) => [name, "readonly"]),
);

export default [
  // d3 is vendored as shipped; the rest is npm's, Python's or generated.
  { ignores: ["static/vendor/**", "node_modules/**", ".venv/**", "var/**"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: globals.browser,
    },
  },
  {
    // a classic script, written into the page before any module runs (the template tag
    // inline_script)
    files: ["static/js/early-socket.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["static/js/i18n.js"],
    languageOptions: { globals: DJANGO_CATALOGUE },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
