export default [{ files: ["**/*.js"], rules: { "no-unused-vars": "error", "no-undef": "error", "eqeqeq": "error" },
  languageOptions: { sourceType: "module", globals: { console: "readonly" } } }];
