// Lint configuration (ESLint flat config). Run with `npm run lint`.
// Rules are the non-type-aware recommended sets so a full run stays fast; the core
// (src-server/core, src-shared) must not use `any` at all.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    ignores: [
      "out/**",
      "dist/**",
      "coverage/**",
      "node_modules/**",
      "resources/**",
      "data/**",
      "data-localnet/**",
      "scratch/**",
      "e2e/.tmp/**",
      "test-results/**",
      ".relay-notes/**",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Unused names are errors unless deliberately marked with a leading underscore.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Outside the core, `any` is tolerated at untyped library boundaries (snarkjs, circomlibjs, ffjavascript); reported as a warning.
      "@typescript-eslint/no-explicit-any": "warn",
    },
  },
  {
    // The pure core and the shared wire code must stay fully typed.
    files: ["src-server/core/**/*.ts", "src-shared/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "error" },
  },
  {
    // The console and the preload run in the browser.
    files: ["src-renderer/**/*.{ts,tsx}", "src-preload/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Plain CommonJS configuration files.
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
);
