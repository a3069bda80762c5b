import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'sdk/dist/**', 'coverage/**', '.tap/**', 'data/**', 'node_modules/**']
  }),
  {
    // The console (Preact): an event handler starts a promise and the page
    // shows its outcome itself, so `void promise` says "not awaited, on purpose";
    // handlers are named for what they do, not handleX.
    files: ['console/**/*.{ts,tsx}'],
    rules: {
      'no-void': ['error', { allowAsStatement: true }],
      'react/jsx-handler-names': 'off'
    }
  },
  {
    // Lines and files a reader can hold. Warnings: a long line or file is
    // seen in every lint run and shortened when its code is next touched.
    files: ['src/**/*.ts', 'plugins/**/*.ts'],
    rules: {
      'max-len': ['warn', { code: 180, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      'max-lines': ['warn', 400]
    }
  }
]
