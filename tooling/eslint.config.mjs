/**
 * The repository's lint and format rules (`npm run lint`, `npm run lint:fix`), modelled on Effect's own: typescript-eslint
 * strict, import hygiene, and the `@effect/dprint` rule, which formats TypeScript with dprint under the same options as
 * `dprint.json` (double quotes, no semicolons, no trailing commas, 120 columns). Everything it reports about formatting,
 * imports and type-only imports is fixed by `npm run lint:fix`.
 *
 * It lives in `tooling/` because typescript-eslint needs TypeScript's JavaScript API, which this workspace's TypeScript 6
 * provides (the root's TypeScript 7 has none); `eslint.config.mjs` at the root re-exports it.
 */
import effectDprint from "@effect/eslint-plugin/configs/dprint"
import eslint from "@eslint/js"
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript"
import importPlugin from "eslint-plugin-import-x"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import tseslint from "typescript-eslint"

/** dprint's TypeScript options: the same as the `typescript` section of `dprint.json`. */
export const dprintTypeScript = {
  indentWidth: 2,
  lineWidth: 120,
  semiColons: "asi",
  quoteStyle: "alwaysDouble",
  trailingCommas: "never",
  operatorPosition: "maintain",
  "arrowFunction.useParentheses": "force"
}

export default tseslint.config(
  {
    ignores: [
      "**/dist",
      "**/node_modules",
      "**/docs",
      "**/*.md",
      "**/.consumer",
      "**/.conformance",
      "**/results",
      "bench/.scratch",
      "packages/test-support/spec",
      "packages/*/src/internal/generated/**"
    ]
  },
  {
    files: ["**/*.{ts,mts,mjs}"],
    extends: [
      eslint.configs.recommended,
      tseslint.configs.strict,
      importPlugin.flatConfigs.recommended,
      importPlugin.flatConfigs.typescript,
      effectDprint
    ],
    plugins: {
      "sort-destructure-keys": sortDestructureKeys
    },
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: 2022,
      sourceType: "module"
    },
    settings: {
      "import-x/resolver-next": [
        createTypeScriptImportResolver({
          alwaysTryTypes: true,
          project: "tsconfig.json",
          conditionNames: ["@mrtr/source", "types", "import", "node", "default"]
        })
      ]
    },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      // Terminal and log safety matches control characters on purpose (SafeText and its tests).
      "no-control-regex": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "sort-imports": "off",
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
          message: "Do not use spread arguments in Array.push"
        }
      ],
      "no-unused-vars": "off",
      "require-yield": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "import-x/first": "error",
      "import-x/newline-after-import": "error",
      "import-x/no-duplicates": "error",
      // What TypeScript checks already (and checks faster): a namespace's members, default exports.
      "import-x/namespace": "off",
      "import-x/default": "off",
      "import-x/no-named-as-default": "off",
      "import-x/no-named-as-default-member": "off",
      "import-x/no-unresolved": "off",
      "import-x/order": "off",
      "sort-destructure-keys/sort-destructure-keys": "error",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/ban-ts-comment": "off",
      // `typeof import("...")` types the modules loaded lazily (start-up time).
      "@typescript-eslint/consistent-type-imports": ["error", { disallowTypeAnnotations: false }],
      "@typescript-eslint/no-array-constructor": "off",
      "@typescript-eslint/no-dynamic-delete": "off",
      "@typescript-eslint/no-empty-interface": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-invalid-void-type": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-use-before-define": "off",
      "@typescript-eslint/prefer-for-of": "off",
      "@typescript-eslint/unified-signatures": "off",
      "@effect/dprint": ["error", { config: dprintTypeScript }]
    }
  },
  {
    // The README's examples name every parameter a reader should see, used or not.
    files: ["examples/readme/**"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { args: "none", varsIgnorePattern: "^_" }]
    }
  },
  {
    files: ["**/*.mjs"],
    languageOptions: {
      globals: { console: "readonly", process: "readonly", URL: "readonly" }
    }
  }
)
