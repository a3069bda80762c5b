import neostandard from 'neostandard'

export default neostandard({
  ts: true,
  ignores: ['dist/**', 'sdk/dist/**', 'coverage/**', '.tap/**', 'data/**', 'node_modules/**']
})
